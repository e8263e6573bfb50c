package chatdoc

import "github.com/chatls/chatls/internal/workers"

// The tests run with the second core the program gives (cmd/chatls), so
// that the two-halves scan is tested.
func init() { Accelerate(Accel{Parallel: workers.Run}) }
