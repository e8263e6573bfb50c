// Pure text helpers over a .chat document's lines (no VS Code, no LSP): which
// tool call the cursor is in, where its placeholder is, and how many
// placeholders wait. The key bindings need the tool ID before any server
// round trip, and the status bar must be right in any server state.
// Mirrors clients/nvim/lua/chatls/doc.lua; both follow SPEC §1.

const STATUS_ALIASES: Record<string, string> = { reject: 'rejected', deny: 'denied' };

export interface Placeholder {
  header: number; // 0-based rows
  opener?: number;
  closer?: number;
  status?: string;
}

export interface Counts {
  pending: number;
  approved: number; // queued or running: approved, no result yet
}

// An opener is 3+ backticks at column 0 with no other backtick on the line;
// a closer is backticks only (trailing spaces allowed), at least as long.
function fenceOpener(line: string): { len: number; info: string } | undefined {
  const m = /^(`{3,})([^`]*)$/.exec(line);
  return m ? { len: m[1].length, info: m[2] } : undefined;
}

function isCloser(line: string, len: number): boolean {
  const m = /^(`+)\s*$/.exec(line);
  return m !== null && m[1].length >= len;
}

// eachLine calls fn for each line with whether it lies inside a fence (the
// opener itself counts as outside, its closer as inside).
function eachLine(lines: string[], fn: (row: number, line: string, inFence: boolean) => boolean | void): void {
  let open = 0;
  for (let row = 0; row < lines.length; row++) {
    const line = lines[row];
    if (open) {
      if (isCloser(line, open)) open = 0;
      if (fn(row, line, true)) return;
    } else {
      const o = fenceOpener(line);
      if (fn(row, line, false)) return;
      if (o) open = o.len;
    }
  }
}

const USE_HEADER = /^\*\*Tool Use:\*\*\s*`([^`]+)`\s*\(`([^`]+)`\)/;
const RESULT_HEADER = /^\*\*Tool Result:\*\*\s*`([^`]+)`\s*(.*)$/;
const ROLE = /^@\w+:\s*$/;

function normalize(s: string | undefined): string | undefined {
  return s === undefined ? undefined : STATUS_ALIASES[s] ?? s;
}

function suffixStatus(suffix: string): string | undefined {
  const m = /^\((?:status=)?(\w+)[^)]*\)/.exec(suffix.trim());
  return normalize(m?.[1]);
}

function fenceStatus(info: string): string | undefined {
  const m = /^flemma:tool\b.*\bstatus=(\w+)/.exec(info) ?? /^flemma:(\w+)\s*$/.exec(info);
  return m && m[1] !== 'tool' ? normalize(m[1]) : undefined;
}

export function splitLines(text: string): string[] {
  return text.split(/\r?\n/);
}

/** The ID of the tool call whose use or result block holds row, if any. */
export function toolIdAt(lines: string[], row: number): string | undefined {
  let id: string | undefined;
  eachLine(lines, (r, line, inFence) => {
    if (r > row) return true;
    if (inFence) return;
    if (ROLE.test(line)) id = undefined;
    const use = USE_HEADER.exec(line);
    const res = RESULT_HEADER.exec(line);
    if (use) id = use[2];
    else if (res) id = res[1];
  });
  return id;
}

/** The result block of call id, or undefined when it has none yet. */
export function placeholder(lines: string[], id: string): Placeholder | undefined {
  let ph: (Placeholder & { len?: number }) | undefined;
  let found: Placeholder | undefined;
  eachLine(lines, (row, line, inFence) => {
    if (ph) {
      if (ph.opener === undefined) {
        if (!inFence && line.trim() === '') return;
        const o = fenceOpener(line);
        if (!o) {
          ph = undefined; // a header without a fence is not a result block
          return;
        }
        ph.opener = row;
        ph.len = o.len;
        ph.status = ph.status ?? fenceStatus(o.info);
      } else if (isCloser(line, ph.len!)) {
        ph.closer = row;
        found = { header: ph.header, opener: ph.opener, closer: row, status: ph.status };
        return true;
      }
      return;
    }
    const m = !inFence && RESULT_HEADER.exec(line);
    if (m && m[1] === id) ph = { header: row, status: suffixStatus(m[2]) };
  });
  return found ?? (ph && ph.opener !== undefined ? { header: ph.header, opener: ph.opener, status: ph.status } : undefined);
}

/** Placeholders by status: pending ones wait for the user, approved ones run. */
export function counts(lines: string[]): Counts {
  const c: Counts = { pending: 0, approved: 0 };
  let header: { status?: string } | undefined;
  eachLine(lines, (_row, line, inFence) => {
    if (inFence) return;
    const m = RESULT_HEADER.exec(line);
    if (m) {
      header = { status: suffixStatus(m[2]) };
      return;
    }
    if (header && line.trim() !== '') {
      const o = fenceOpener(line);
      const status = header.status ?? (o ? fenceStatus(o.info) : undefined);
      if (status === 'pending') c.pending++;
      if (status === 'approved') c.approved++;
      header = undefined;
    }
  });
  return c;
}

export interface PendingCall {
  id: string;
  name?: string; // from the call's **Tool Use:** header
  header: number; // 0-based rows
  opener?: number;
}

/** The calls whose placeholder waits for approval, in document order. */
export function pending(lines: string[]): PendingCall[] {
  const names = new Map<string, string>();
  const out: PendingCall[] = [];
  let header: { id: string; row: number; status?: string } | undefined;
  eachLine(lines, (row, line, inFence) => {
    if (inFence) return;
    const use = USE_HEADER.exec(line);
    if (use) names.set(use[2], use[1]);
    const m = RESULT_HEADER.exec(line);
    if (m) {
      header = { id: m[1], row, status: suffixStatus(m[2]) };
      return;
    }
    if (header && line.trim() !== '') {
      const o = fenceOpener(line);
      if ((header.status ?? (o ? fenceStatus(o.info) : undefined)) === 'pending') {
        out.push({ id: header.id, header: header.row, opener: o ? row : undefined });
      }
      header = undefined;
    }
  });
  return out.map((p) => ({ ...p, name: names.get(p.id) }));
}

/** The pending call closest to row (one above wins a tie), if any. */
export function nearestPending(lines: string[], row: number): PendingCall | undefined {
  let best: PendingCall | undefined;
  for (const p of pending(lines)) {
    if (!best || Math.abs(p.header - row) < Math.abs(best.header - row)) best = p;
  }
  return best;
}
