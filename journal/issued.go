package journal

// Issued placeholders (SPEC §7 "The terminal is a full client"): a
// placeholder chatls wrote as pending is recorded with the hash of its tool
// input, so an approval the user later types into the file — in a terminal
// editor, with no chatls watching — can be told from text that arrived
// approved: it is the user's decision only if chatls issued that very
// placeholder for that very input.
//
// Issue entries are not synced: a lost one only means the user approves
// again, never that something runs.

// Issue records that the placeholder of tool id in document was issued as
// pending for the tool input whose hash is inputHash.
func (j *Journal) Issue(document, id, inputHash string) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.issued[key(document, id)] == inputHash {
		return nil // already on record (a placeholder reissued for the same input)
	}
	_, err := j.append(entry{Event: "issue", Document: document, ToolID: id, Hash: inputHash}, false)
	if err == nil {
		j.issued[key(document, id)] = inputHash
	}
	return err
}

// IssuedFor returns the input hash the placeholder of tool id was last
// issued as pending for, by this process or any other.
func (j *Journal) IssuedFor(document, id string) (string, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.refreshOften()
	h, ok := j.issued[key(document, id)]
	return h, ok
}
