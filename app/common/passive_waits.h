// OpenMP's waiting threads sleep instead of spinning: a desktop user's other core is often busy, and a thread that
// spins waiting for its team takes the time slice the busy core's work needed. GCC's libgomp reads
// OMP_WAIT_POLICY once, when it loads (before main), so a program that finds it unset sets it to "passive" and
// runs itself again (execv of /proc/self/exe: the same process id, arguments and environment but that variable).
// A user who set OMP_WAIT_POLICY keeps their choice. Measured in docs/speed.md ("Waiting threads").
#pragma once

namespace attnviz {

// Call first thing in main(). Returns only when nothing was re-run (the variable was already set, or the re-run
// could not be made; then the program goes on as it is).
void UsePassiveOpenMpWaits(char** argv);

}  // namespace attnviz
