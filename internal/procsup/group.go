package procsup

// Prepare, Kill and WaitLeader run a child program (a plugin, a stdio MCP
// server, a policy resolver) so that nothing it starts outlives it or chatls.
//
// On Linux the child runs under a one-shot supervisor: it starts the child
// in a process group of its own, is the child subreaper of everything it
// starts, and holds the read end of a lifeline pipe whose write end stays in
// chatls. When the child exits, when Kill cuts the lifeline, or when chatls
// dies in any way (SIGKILL included: the kernel closes the write end), the
// supervisor kills the child's group and every orphan that reached it, reaps
// them all and exits. The caller's exec.Cmd is the supervisor's: its
// Process, Wait and pipes are the supervisor's, which passes stdin, stdout
// and stderr through and exits with the child's status.
//
// Elsewhere, or where /proc/self/exe cannot be executed, the child leads its
// own process group with a parent-death signal (Linux) and Kill kills the
// group; then, if chatls is killed with SIGKILL, only the direct child is
// signalled and processes it spawned keep running until they notice (their
// stdin and stdout pipes are closed by then).
