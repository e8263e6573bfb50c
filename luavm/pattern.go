package luavm

// A Lua 5.1 pattern matcher (after lstrlib.c) whose every step is charged to
// the evaluation's budget. gopher-lua's own matcher runs inside one Go call
// with no limit, so `(".-"):rep(4) .. "b"` against a few hundred bytes
// backtracks for minutes; here it stops when the budget is spent.

const (
	patMaxCaptures  = 32
	patMaxDepth     = 200 // recursion of match (LUAI_MAXCCALLS)
	capUnfinished   = -1
	capPosition     = -2
	patSpecials     = "^$*+?.([%-"
	patStepsPerByte = 1
)

// patError is raised (as a panic, recovered by the caller) for a malformed
// pattern or a spent budget.
type patError struct{ msg string }

type patCapture struct{ init, len int }

type patMatcher struct {
	src, pat string
	level    int
	capture  [patMaxCaptures]patCapture
	depth    int
	budget   *luaBudget
}

func (m *patMatcher) fail(msg string) { panic(patError{msg}) }

func (m *patMatcher) step() {
	if !m.budget.step(patStepsPerByte) {
		panic(patError{m.budget.failed.Error()})
	}
}

// classEnd is the index just past the single-character class at p.
func (m *patMatcher) classEnd(p int) int {
	pat := m.pat
	c := pat[p]
	p++
	switch c {
	case '%':
		if p >= len(pat) {
			m.fail("malformed pattern (ends with '%')")
		}
		return p + 1
	case '[':
		if p < len(pat) && pat[p] == '^' {
			p++
		}
		for { // look for a ']'
			if p >= len(pat) {
				m.fail("malformed pattern (missing ']')")
			}
			c := pat[p]
			p++
			if c == '%' && p < len(pat) {
				p++ // skip escapes (e.g. '%]')
			}
			if p >= len(pat) {
				m.fail("malformed pattern (missing ']')")
			}
			if pat[p] == ']' {
				return p + 1
			}
		}
	}
	return p
}

func matchClass(c, cl byte) bool {
	var res bool
	lower := cl | 0x20
	switch lower {
	case 'a':
		res = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	case 'c':
		res = c < 0x20 || c == 0x7f
	case 'd':
		res = c >= '0' && c <= '9'
	case 'l':
		res = c >= 'a' && c <= 'z'
	case 'p': // C's ispunct
		res = c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
	case 's':
		res = c == ' ' || c >= '\t' && c <= '\r'
	case 'u':
		res = c >= 'A' && c <= 'Z'
	case 'w':
		res = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	case 'x':
		res = c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
	case 'z':
		res = c == 0
	default:
		return cl == c
	}
	if cl >= 'A' && cl <= 'Z' {
		return !res
	}
	return res
}

// matchBracketClass matches c against the set [p, ec] (p at '[', ec at ']').
func (m *patMatcher) matchBracketClass(c byte, p, ec int) bool {
	pat := m.pat
	sig := true
	if pat[p+1] == '^' {
		sig = false
		p++
	}
	for p++; p < ec; p++ {
		switch {
		case pat[p] == '%':
			p++
			if matchClass(c, pat[p]) {
				return sig
			}
		case pat[p+1] == '-' && p+2 < ec:
			p += 2
			if pat[p-2] <= c && c <= pat[p] {
				return sig
			}
		case pat[p] == c:
			return sig
		}
	}
	return !sig
}

func (m *patMatcher) singleMatch(s, p, ep int) bool {
	if s >= len(m.src) {
		return false
	}
	c := m.src[s]
	switch m.pat[p] {
	case '.':
		return true
	case '%':
		return matchClass(c, m.pat[p+1])
	case '[':
		return m.matchBracketClass(c, p, ep-1)
	}
	return m.pat[p] == c
}

func (m *patMatcher) matchBalance(s, p int) int {
	if p+1 >= len(m.pat) {
		m.fail("missing arguments to '%b'")
	}
	if s >= len(m.src) || m.src[s] != m.pat[p] {
		return -1
	}
	b, e := m.pat[p], m.pat[p+1]
	cont := 1
	for s++; s < len(m.src); s++ {
		m.step()
		switch m.src[s] {
		case e:
			if cont--; cont == 0 {
				return s + 1
			}
		case b:
			cont++
		}
	}
	return -1
}

func (m *patMatcher) maxExpand(s, p, ep int) int {
	i := 0
	for m.singleMatch(s+i, p, ep) {
		m.step()
		i++
	}
	for ; i >= 0; i-- { // try with the maximum repetitions, then fewer
		m.step()
		if res := m.match(s+i, ep+1); res != -1 {
			return res
		}
	}
	return -1
}

func (m *patMatcher) minExpand(s, p, ep int) int {
	for {
		m.step()
		if res := m.match(s, ep+1); res != -1 {
			return res
		}
		if !m.singleMatch(s, p, ep) {
			return -1
		}
		s++
	}
}

func (m *patMatcher) startCapture(s, p, what int) int {
	if m.level >= patMaxCaptures {
		m.fail("too many captures")
	}
	m.capture[m.level] = patCapture{s, what}
	m.level++
	res := m.match(s, p)
	if res == -1 {
		m.level--
	}
	return res
}

func (m *patMatcher) endCapture(s, p int) int {
	l := -1
	for i := m.level - 1; i >= 0; i-- {
		if m.capture[i].len == capUnfinished {
			l = i
			break
		}
	}
	if l < 0 {
		m.fail("invalid pattern capture")
	}
	m.capture[l].len = s - m.capture[l].init
	res := m.match(s, p)
	if res == -1 {
		m.capture[l].len = capUnfinished
	}
	return res
}

func (m *patMatcher) matchCapture(s int, l byte) int {
	i := int(l) - '1'
	if i < 0 || i >= m.level || m.capture[i].len == capUnfinished {
		m.fail("invalid capture index")
	}
	c := m.capture[i]
	if c.len < 0 || len(m.src)-s < c.len {
		return -1
	}
	m.budget.step(c.len)
	if m.src[c.init:c.init+c.len] == m.src[s:s+c.len] {
		return s + c.len
	}
	return -1
}

// match returns the end of the match of pat[p:] at src[s:], or -1.
func (m *patMatcher) match(s, p int) int {
	m.depth++
	defer func() { m.depth-- }()
	if m.depth > patMaxDepth {
		m.fail("pattern too complex")
	}
	pat := m.pat
	for {
		m.step()
		if p == len(pat) {
			return s
		}
		switch pat[p] {
		case '(':
			if p+1 < len(pat) && pat[p+1] == ')' {
				return m.startCapture(s, p+2, capPosition)
			}
			return m.startCapture(s, p+1, capUnfinished)
		case ')':
			return m.endCapture(s, p+1)
		case '%':
			if p+1 < len(pat) {
				switch c := pat[p+1]; {
				case c == 'b':
					if s = m.matchBalance(s, p+2); s == -1 {
						return -1
					}
					p += 4
					continue
				case c == 'f':
					p += 2
					if p >= len(pat) || pat[p] != '[' {
						m.fail("missing '[' after '%f' in pattern")
					}
					ep := m.classEnd(p)
					var prev, cur byte
					if s > 0 {
						prev = m.src[s-1]
					}
					if s < len(m.src) {
						cur = m.src[s]
					}
					if m.matchBracketClass(prev, p, ep-1) || !m.matchBracketClass(cur, p, ep-1) {
						return -1
					}
					p = ep
					continue
				case c >= '0' && c <= '9':
					if s = m.matchCapture(s, c); s == -1 {
						return -1
					}
					p += 2
					continue
				}
			}
		case '$':
			if p+1 == len(pat) {
				if s == len(m.src) {
					return s
				}
				return -1
			}
		}
		ep := m.classEnd(p)
		ok := m.singleMatch(s, p, ep)
		if ep < len(pat) {
			switch pat[ep] {
			case '?':
				if ok {
					if res := m.match(s+1, ep+1); res != -1 {
						return res
					}
				}
				p = ep + 1
				continue
			case '*':
				return m.maxExpand(s, p, ep)
			case '+':
				if !ok {
					return -1
				}
				return m.maxExpand(s+1, p, ep)
			case '-':
				return m.minExpand(s, p, ep)
			}
		}
		if !ok {
			return -1
		}
		s++
		p = ep
	}
}

// patCaptureValue is capture i of the match [s, e): a substring, or a
// position (1-based) for `()`. With no captures, capture 0 is the match.
type patValue struct {
	str   string
	pos   int
	isPos bool
}

func (m *patMatcher) captureValue(i, s, e int) patValue {
	if i >= m.level {
		if i != 0 {
			m.fail("invalid capture index")
		}
		return patValue{str: m.src[s:e]}
	}
	c := m.capture[i]
	switch c.len {
	case capUnfinished:
		m.fail("unfinished capture")
	case capPosition:
		return patValue{pos: c.init + 1, isPos: true}
	}
	return patValue{str: m.src[c.init : c.init+c.len]}
}

// captureCount is how many values a match yields (at least the match).
func (m *patMatcher) captureCount(whole bool) int {
	if m.level == 0 && whole {
		return 1
	}
	return m.level
}
