/* Builds a singly linked list of 1000 nodes, one malloc each, then frees it front to back.
 * Log: malloc 1000, free 1000, peak 1000 x sizeof(struct node) bytes in 1000 blocks, no leak. */
#include <stdlib.h>

#include "scenario.h"

struct node {
    struct node* next;
    long value;
};

__attribute__((noinline)) static struct node* build_list(int count) {
    struct node* head = NULL;
    for (int i = 0; i < count; ++i) {
        struct node* node = scenario_keep(malloc(sizeof *node));
        node->next = head;
        node->value = i;
        head = node;
    }
    return head;
}

__attribute__((noinline)) static void tear_down(struct node* head) {
    while (head) {
        struct node* next = head->next;
        free(head);
        head = next;
    }
}

int main(int argc, char** argv) {
    if (scenario_empty(argc, argv)) return 0;
    tear_down(build_list(1000));
    return 0;
}
