#!/usr/bin/env node
// The npm entry of hall: runs the hall program of this platform's package,
// @hall-dev/hall-<os>-<cpu>, an optional dependency npm installs only on
// the platform its os and cpu name. No install script downloads anything:
// some package managers refuse them.
'use strict';
const { spawn } = require('child_process');
const path = require('path');

const pkg = `@hall-dev/hall-${process.platform}-${process.arch}`;
let bin;
try {
  bin = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), 'bin', process.platform === 'win32' ? 'hall.exe' : 'hall');
} catch {
  console.error(`hall: ${pkg} is not installed: the Hall has no build for ${process.platform} ${process.arch}, or npm left optional dependencies out (--omit=optional)`);
  process.exit(1);
}
const child = spawn(bin, process.argv.slice(2), { stdio: 'inherit' });
// A signal for this process is the Hall's: it shuts down gracefully.
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => child.kill(sig));
}
child.on('error', (err) => {
  console.error(`hall: ${bin}: ${err.message}`);
  process.exit(1);
});
child.on('exit', (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
