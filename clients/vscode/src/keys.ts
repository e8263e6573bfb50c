// The key names sent to the server (settings key `keys`, docs/editors.md), so
// its messages say "press Ctrl+] (next step)" instead of naming a command.
// They are read from this extension's own key bindings in package.json; a
// user who rebinds a command in keybindings.json is not seen (VS Code has no
// API to read the effective binding), so the messages then name the default.
import * as vscode from 'vscode';

// The server's action names for our commands.
const ACTIONS: Record<string, string> = {
  'chatls.client.advance': 'advance',
  'chatls.client.approveAtCursor': 'approve',
  'chatls.client.rejectAtCursor': 'reject',
  'chatls.client.runAtCursor': 'run',
  'chatls.client.cancelAtCursor': 'cancel',
  'chatls.client.explainAtCursor': 'explain',
  'chatls.client.nextPending': 'nextPending',
  'chatls.client.previousPending': 'prevPending',
};

interface KeyBinding {
  command: string;
  key?: string;
  mac?: string;
}

/** keyLabel writes a binding as VS Code's menus do: "ctrl+alt+y" -> "Ctrl+Alt+Y". */
export function keyLabel(binding: string): string {
  return binding
    .split('+')
    .map((part) => (part.length === 1 ? part.toUpperCase() : part[0].toUpperCase() + part.slice(1)))
    .join('+');
}

/** keyNames maps the server's action names to this platform's key labels. */
export function keyNames(ext: vscode.Extension<unknown>, platform = process.platform): Record<string, string> {
  const bindings: KeyBinding[] = ext.packageJSON?.contributes?.keybindings ?? [];
  const out: Record<string, string> = {};
  for (const b of bindings) {
    const action = ACTIONS[b.command];
    const key = platform === 'darwin' ? (b.mac ?? b.key) : b.key;
    if (action && key && !out[action]) out[action] = keyLabel(key);
  }
  return out;
}
