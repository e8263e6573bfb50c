package chatdoc

// nodeBatch hands out the nodes of a document parsed once (ParseOnce) from
// a few large arrays instead of one allocation each.
type nodeBatch struct {
	on      bool // false: every node its own allocation (Parse)
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

// newNode is a zero node: the next element of *s when batching (a full
// array is never grown, since nodes handed out must not move), else a new
// allocation.
func newNode[T any](b *nodeBatch, s *[]T) *T {
	if !b.on {
		return new(T)
	}
	if len(*s) == cap(*s) {
		*s = make([]T, 0, batchSize)
	}
	*s = (*s)[:len(*s)+1]
	return &(*s)[len(*s)-1]
}

// addNode appends v to list, the current message's list of its kind. When
// batching, the list is kept as the tail of *arena: appending extends it in
// place, and when the array is full the list moves to a new one. The list
// returned has no room beyond its end, so an append to it elsewhere copies
// instead of writing into a neighbour's.
func addNode[T any](b *nodeBatch, arena *[]T, list []T, v T) []T {
	if !b.on {
		return append(list, v)
	}
	if len(*arena) == cap(*arena) {
		fresh := make([]T, len(list), max(batchSize, 2*len(list)+1))
		copy(fresh, list)
		*arena = fresh
	}
	*arena = append(*arena, v)
	a := *arena
	return a[len(a)-len(list)-1 : len(a) : len(a)]
}
