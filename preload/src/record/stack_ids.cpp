// Stack ids, out of line: a stack's first sight (its record, and the module map before it when
// objects were loaded since), the check against a full walk, and the stack state's start-up and
// fork. The inline capture the event path runs is in stack_ids.hpp.
#include "record/stack_ids.hpp"

#include <cstring>

#include "base/system.hpp"
#include "record/events.hpp"
#include "record/module_map.hpp"

namespace memlog::preload {

constinit StackIds g_stacks;

void prepareStackIds(const StackSettings& settings) {
    g_stacks.m_settings = settings;
    unwind::prepare(settings.m_method);
    findModuleRange(reinterpret_cast<const void*>(&prepareStackIds), &g_stacks.m_ownCode.m_lo,
                    &g_stacks.m_ownCode.m_hi);
    findModuleRange(unwind::libraryAddress(), &g_stacks.m_unwinderCode.m_lo, &g_stacks.m_unwinderCode.m_hi);
    g_stacks.m_table.create();
}

void forgetStacksInForkChild(ThreadState& thread) {
    g_stacks.m_table.reset();
    forgetModuleMap();
    thread.m_stacks.m_lastHash = 0;
    thread.m_stacks.m_lastId = 0;
    unwind::forgetStacks(thread.m_stacks.m_unwindCache);
}

bool isRecorderHelperCode(const void* returnAddress) {
    return g_stacks.m_unwinderCode.contains(reinterpret_cast<uintptr_t>(returnAddress));
}

bool isRecorderCode(uint64_t address) { return g_stacks.m_ownCode.contains(address); }

uint32_t stackIdOfFrames(ThreadState& thread, const uint64_t* frames, uint32_t depth) {
    const uint64_t hash = StackTable::hashFrames(frames, depth);
    if (hash == thread.m_stacks.m_lastHash) return thread.m_stacks.m_lastId;  // loops allocate from one place
    const StackTable::Claim claim = g_stacks.m_table.find(hash);
    uint32_t id = claim.m_id;
    if (claim.m_claimed) {
        // New code may come from a newly loaded object: bring the module map up to date first.
        if (modulesChanged()) writeModuleMap(thread, nextSequence(), sys::readTsc());
        id = g_stacks.m_table.newId();
        if (uint8_t* out = beginMetaRecord(thread, format::stackRecordMaxBytes(depth)))
            commitRecord(thread, out, format::encodeStackPayload(out, id, frames, depth), format::Kind::Stack);
        g_stacks.m_table.publish(claim.m_slot, id);
    }
    thread.m_stacks.m_lastHash = hash;
    thread.m_stacks.m_lastId = id;
    return id;
}

bool matchesFullWalk(uint64_t* frames, uint32_t& depth) {
    const StackSettings& settings = g_stacks.m_settings;
    uint64_t full[format::kMaxStackDepth];
    const uint32_t fullDepth = unwind::capture(settings.m_method, full, settings.m_depth, g_stacks.m_ownCode);
    countInHeader(&format::FileHeader::m_unwindChecked);
    if (fullDepth == depth && std::memcmp(full, frames, depth * sizeof(uint64_t)) == 0) return true;
    countInHeader(&format::FileHeader::m_unwindMismatches);
    std::memcpy(frames, full, fullDepth * sizeof(uint64_t));
    depth = fullDepth;
    return false;
}

}  // namespace memlog::preload
