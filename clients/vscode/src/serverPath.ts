// Finds the chatls binary before the language client tries to spawn it, so a
// missing binary is one clear message naming the setting, not the client's
// spawn error, restart notices and a crashed-server dialog.
import * as fs from 'fs';
import * as path from 'path';

function executable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * findServer resolves command as the shell would: a path when it contains a
 * separator, else the first executable of that name on PATH. undefined when
 * there is none.
 */
export function findServer(command: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (command.includes('/') || command.includes(path.sep)) return executable(command) ? command : undefined;
  const exts = process.platform === 'win32' ? (env.PATHEXT ?? '.EXE').split(';') : [''];
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    for (const ext of exts) {
      const file = path.join(dir, command + ext);
      if (executable(file)) return file;
    }
  }
  return undefined;
}
