package chatdoc

// idTable indexes a list of tool IDs: for each ID, the position of its
// first occurrence. A plain map: an open-addressed table of its own was
// 8 bytes a slot against the map's 24, but neither `chatls check` nor the
// server's own memory moved by a tenth without it (docs/performance.md,
// "Retirements").
type idTable struct {
	ids   []string
	first map[string]int32
}

// newIDTable indexes ids, which it keeps, and lists the positions of the
// repeats (every occurrence after an ID's first), in order.
func newIDTable(ids []string) (t idTable, repeats []int) {
	if len(ids) == 0 {
		return idTable{}, nil
	}
	t = idTable{ids: ids, first: make(map[string]int32, len(ids))}
	for i, id := range ids {
		if _, seen := t.first[id]; seen {
			repeats = append(repeats, i)
			continue
		}
		t.first[id] = int32(i)
	}
	return t, repeats
}

// index is the position of id's first occurrence.
func (t idTable) index(id string) (int, bool) {
	i, ok := t.first[id]
	if !ok {
		return -1, false
	}
	return int(i), true
}
