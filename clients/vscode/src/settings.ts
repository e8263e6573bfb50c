// The settings object sent to chatls (SPEC §4): the same object goes out as
// initializationOptions, as the answer to workspace/configuration (section
// `chatls`) and with didChangeConfiguration.
//
// Only values the user actually set are sent. VS Code would otherwise hand
// over every contributed default, and editor settings count as user config on
// the server: a default `autoApprove` from here would silently override the
// user's own ~/.config/chatls/config.toml.
import * as vscode from 'vscode';
import { keyNames } from './keys';

// Client-only keys: how to start the server, not what it should do.
const CLIENT_ONLY = /^chatls\.(server|trace)\./;

interface PropertySchema {
  scope?: string;
}

function contributedKeys(ext: vscode.Extension<unknown>): [string, PropertySchema][] {
  const props = ext.packageJSON?.contributes?.configuration?.properties ?? {};
  return Object.entries(props as Record<string, PropertySchema>).filter(([k]) => !CLIENT_ONLY.test(k));
}

function setPath(obj: Record<string, unknown>, path: string[], value: unknown): void {
  let cur = obj;
  for (const p of path.slice(0, -1)) {
    if (typeof cur[p] !== 'object' || cur[p] === null) cur[p] = {};
    cur = cur[p] as Record<string, unknown>;
  }
  cur[path[path.length - 1]] = value;
}

/**
 * serverSettings returns the explicitly-set chatls settings as one nested
 * object, plus `keys`: this extension's key names for the server's messages.
 */
export function serverSettings(ext: vscode.Extension<unknown>, scope?: vscode.Uri): Record<string, unknown> {
  const config = vscode.workspace.getConfiguration(undefined, scope);
  const out: Record<string, unknown> = { keys: keyNames(ext) };
  for (const [key, schema] of contributedKeys(ext)) {
    const v = config.inspect(key);
    if (!v) continue;
    // Keys that can widen approvals are `machine`-scoped in package.json, so a
    // repository's .vscode/settings.json can't approve tools; read only the
    // user's value for them even if VS Code offered more.
    const userOnly = schema.scope === 'machine' || schema.scope === 'application';
    const value = userOnly ? v.globalValue : (v.workspaceFolderValue ?? v.workspaceValue ?? v.globalValue);
    if (value !== undefined) setPath(out, key.split('.').slice(1), value);
  }
  return out;
}

/** section returns the part of settings a workspace/configuration item asks for. */
export function section(settings: Record<string, unknown>, name: string | undefined): unknown {
  if (!name || name === 'chatls') return settings;
  if (!name.startsWith('chatls.')) return null;
  let cur: unknown = settings;
  for (const p of name.split('.').slice(1)) {
    cur = cur && typeof cur === 'object' ? (cur as Record<string, unknown>)[p] : undefined;
  }
  return cur ?? null;
}
