// Sites for `memlog pprof`, with one inline helper in two functions and a leak:
//   churn         100 x new char[64], each deleted at once (before the peak)
//   grab_bytes    an always-inline helper: 4 x 1024 bytes in build_table, 2 x 512 in
//                 build_index; live at the peak, deleted after it
//   leak_nodes    7 x new Node (48 bytes), never deleted
// The heap peaks once everything but churn's blocks is live: 4096 + 1024 + 336 bytes in 13 blocks.
#include <cstring>

#include "scenario.h"

struct Node {
    Node* m_next;
    char m_payload[40];
};

static char* held[8];
static int heldCount = 0;
static Node* nodes = nullptr;

static inline __attribute__((always_inline)) char* grab_bytes(size_t size) {
    return new char[size];  // site:grab_bytes
}

__attribute__((noinline)) void churn() {
    for (int i = 0; i < 100; ++i) delete[] static_cast<char*>(scenario_keep(new char[64]));  // site:churn
}

__attribute__((noinline)) void build_table() {
    for (int i = 0; i < 4; ++i) held[heldCount++] = static_cast<char*>(scenario_keep(grab_bytes(1024)));
}

__attribute__((noinline)) void build_index() {
    for (int i = 0; i < 2; ++i) held[heldCount++] = static_cast<char*>(scenario_keep(grab_bytes(512)));
}

__attribute__((noinline)) void leak_nodes() {
    for (int i = 0; i < 7; ++i) nodes = new Node{nodes, {}};  // site:leak_nodes
}

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    churn();
    build_table();
    build_index();
    leak_nodes();
    for (int i = 0; i < heldCount; ++i) delete[] held[i];
    scenario_keep(nodes);
    return 0;
}
