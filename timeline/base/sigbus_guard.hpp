// A log cut short by another program while a reader has it mapped raises SIGBUS where the file
// no longer reaches. The reader registers each mapping here; a program that ends when a read
// fails (memlog, memtimeline) installs the handler that turns such a SIGBUS into a message and
// exit status 2, as for any bad input.
#pragma once

#include <cstdint>

namespace memlog::timeline {

// Installs the handler: it names the file and the offset and exits with status 2; a SIGBUS
// elsewhere keeps its default action. `program` begins the message.
void exitWhenALogIsCutWhileRead(const char* program);

// A mapping the handler knows, from watchMapping until unwatchMapping. Null when more logs are
// mapped than the handler has slots for (64): that log's SIGBUS is then a crash, as without it.
struct MappedLog;
MappedLog* watchMapping(const uint8_t* base, uint64_t bytes, const char* path);
void unwatchMapping(MappedLog* slot);

}  // namespace memlog::timeline
