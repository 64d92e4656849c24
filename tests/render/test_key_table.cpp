// The window's key table: one action a key. A second binding of a key is dead (the first found
// wins), as `r` was when the array page's row lengths and the compare page both took it.
#include <catch2/catch.hpp>

#include <map>
#include <utility>

#include "render/window/window_state.hpp"

using memlog::render::KeyBinding;
using memlog::render::keyBindings;

TEST_CASE("the key table binds each key, with or without shift, to one action") {
    std::map<std::pair<SDL_Keycode, bool>, const char*> taken;
    for (const KeyBinding& binding : keyBindings()) {
        INFO("key " << SDL_GetKeyName(binding.m_key) << (binding.m_shift ? " with shift" : "") << ": "
                    << binding.m_what);
        const auto [at, fresh] = taken.emplace(std::make_pair(binding.m_key, binding.m_shift), binding.m_what);
        CHECK(fresh);
    }
    CHECK(taken.size() > 30);
}
