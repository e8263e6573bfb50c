// Package rewind is chatls's checkpoint store (SPEC §10): before a call
// that can change files runs, Checkpoint records what it may touch; After
// records the result; Plan and Apply put files back as they were before a
// call, and Undo takes a rewind back. It knows nothing of LSP or sessions.
//
// The store is git's object format through the real git binary, with a
// private GIT_DIR (one bare repository for all workspaces) and a private
// index per workspace root; the user's repository is never discovered,
// read for content or written. Decisions, each tested:
//   - Named paths outside the root are refused with ErrOutsideRoot.
//   - Ignored files are never stored, also when a file tool names one;
//     .gitignore files from the root down and the user's .git/info/exclude
//     count, the user's global git config does not.
//   - .flemma/ (chatls's own records) and .git are always excluded; nested
//     repositories and submodules, files over MaxFileSize, sockets and
//     devices are listed as not covered.
//   - The workspace's .gitattributes do not apply: bytes are kept exactly.
//   - Collect holds the store's lock exclusively while git prunes, and each
//     root's last whole snapshot stays referenced, so a private index never
//     points at a pruned object.
package rewind
