package chatdoc

// nodeBatch hands out the nodes of a document parsed once (ParseOnce) from
// a few large arrays instead of one allocation each.
type nodeBatch struct {
	msgs    []Message
	uses    []ToolUse
	results []ToolResult
	fences  []Fence
	// The messages' lists of pointers, each message's the tail of its array.
	useLists    []*ToolUse
	resultLists []*ToolResult
	fenceLists  []*Fence
}

// batchSize is how many nodes of a kind one array holds.
const batchSize = 512

// grab hands out the next element of *s, starting a new array when it is
// full (a full array is never grown: nodes handed out must not move).
func grab[T any](s *[]T) *T {
	if len(*s) == cap(*s) {
		*s = make([]T, 0, batchSize)
	}
	*s = (*s)[:len(*s)+1]
	return &(*s)[len(*s)-1]
}

func (s *bodyScanner) newMessage() *Message {
	if s.batch == nil {
		return new(Message)
	}
	return grab(&s.batch.msgs)
}

func (s *bodyScanner) newToolUse() *ToolUse {
	if s.batch == nil {
		return new(ToolUse)
	}
	return grab(&s.batch.uses)
}

func (s *bodyScanner) newToolResult() *ToolResult {
	if s.batch == nil {
		return new(ToolResult)
	}
	return grab(&s.batch.results)
}

func (s *bodyScanner) newFence() *Fence {
	if s.batch == nil {
		return new(Fence)
	}
	return grab(&s.batch.fences)
}

// appendTail appends v to list, the current message's list, kept as the
// tail of *arena: appending extends it in place; when the array is full the
// list moves to a new one. The list returned has no room beyond its end, so
// an append to it elsewhere copies instead of writing into a neighbour.
func appendTail[T any](arena *[]T, list []T, v T) []T {
	if len(*arena) == cap(*arena) {
		fresh := make([]T, len(list), max(batchSize, 2*len(list)+1))
		copy(fresh, list)
		*arena = fresh
	}
	*arena = append(*arena, v)
	a := *arena
	return a[len(a)-len(list)-1 : len(a) : len(a)]
}

func (s *bodyScanner) addUse(u *ToolUse) {
	if s.batch == nil {
		s.cur.ToolUses = append(s.cur.ToolUses, u)
		return
	}
	s.cur.ToolUses = appendTail(&s.batch.useLists, s.cur.ToolUses, u)
}

func (s *bodyScanner) addResult(r *ToolResult) {
	if s.batch == nil {
		s.cur.ToolResults = append(s.cur.ToolResults, r)
		return
	}
	s.cur.ToolResults = appendTail(&s.batch.resultLists, s.cur.ToolResults, r)
}

func (s *bodyScanner) addFence(f *Fence) {
	if s.batch == nil {
		s.cur.Fences = append(s.cur.Fences, f)
		return
	}
	s.cur.Fences = appendTail(&s.batch.fenceLists, s.cur.Fences, f)
}
