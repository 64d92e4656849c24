// The answers of a slow question asked again and again (a global's symbol, a function's name by
// address), kept for a fixed number of keys: each key has one slot, and a key that lands on a
// taken slot replaces its answer. Exact, since an answer forgotten is asked again; and its
// memory is fixed, where a map of every address a full trace touched would grow with it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "timeline/base/seeded_hash.hpp"

namespace memlog::timeline {

template <typename Value, size_t kSlots = size_t{1} << 14>
class AnswerMemo {
    static_assert((kSlots & (kSlots - 1)) == 0, "a power of two");

public:
    AnswerMemo() : m_slots(kSlots) {}

    // The answer kept for `key`, or null.
    Value* find(uint64_t key) {
        Slot& slot = m_slots[m_hash(key) & (kSlots - 1)];
        return slot.m_used && slot.m_key == key ? &slot.m_value : nullptr;
    }
    // Keeps `value` as the answer for `key`, in place of the slot's last one.
    Value& keep(uint64_t key, Value value) {
        Slot& slot = m_slots[m_hash(key) & (kSlots - 1)];
        slot.m_key = key;
        slot.m_used = true;
        slot.m_value = std::move(value);
        return slot.m_value;
    }
    // The answer for `key`, asked of `answer(key)` when none is kept.
    template <typename Answer>
    Value& get(uint64_t key, Answer&& answer) {
        if (Value* kept = find(key)) return *kept;
        return keep(key, answer(key));
    }

private:
    struct Slot {
        uint64_t m_key = 0;
        bool m_used = false;
        Value m_value{};
    };
    std::vector<Slot> m_slots;
    SeededHash m_hash;
};

}  // namespace memlog::timeline
