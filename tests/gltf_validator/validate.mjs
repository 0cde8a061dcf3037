// SPDX-License-Identifier: MIT
// Validates .gltf and .glb files with the Khronos glTF validator
// (gltf-validator, installed into node_modules by scripts/test: npm ci).
// Prints, per file, its errors, warnings and infos (code, pointer, message), one
// a line, then "FILE: E errors, W warnings, I infos, H hints"; exits 1
// when a file has an error or cannot be read, 0 otherwise.
//   node validate.mjs FILE|DIR...   (a folder: every .glb and .gltf in it)
import { readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
let validator;
try {
    validator = require('gltf-validator');
} catch {
    console.log(`skip: gltf-validator is not installed (npm ci --prefix ${path.dirname(new URL(import.meta.url).pathname)})`);
    process.exit(77);
}

const files = [];
for (const arg of process.argv.slice(2)) {
    if ((await stat(arg).catch(() => null))?.isDirectory()) {
        const names = (await readdir(arg)).filter((n) => /\.(glb|gltf)$/i.test(n)).sort();
        if (!names.length) {
            console.log(`${arg}: no .glb or .gltf files to validate`);
            process.exit(1);
        }
        for (const n of names) files.push(path.join(arg, n));
    } else {
        files.push(arg);
    }
}
let failed = false;
for (const file of files) {
    let report;
    try {
        const bytes = new Uint8Array(await readFile(file));
        report = await validator.validateBytes(bytes, {
            uri: path.basename(file),
            maxIssues: 0,
            // external buffers (.gltf + .bin) are read beside the file
            externalResourceFunction: (uri) =>
                readFile(path.join(path.dirname(file), decodeURIComponent(uri))).then((b) => new Uint8Array(b)),
        });
    } catch (e) {
        console.log(`${file}: not validated: ${e && e.message ? e.message : e}`);
        failed = true;
        continue;
    }
    const names = ['error', 'warning', 'info', 'hint'];
    for (const m of report.issues.messages)
        if (m.severity <= 2) console.log(`${file}: ${names[m.severity]} ${m.code} ${m.pointer || ''}: ${m.message}`);
    const i = report.issues;
    console.log(`${file}: ${i.numErrors} errors, ${i.numWarnings} warnings, ${i.numInfos} infos, ${i.numHints} hints`);
    if (i.numErrors > 0) failed = true;
}
process.exit(failed ? 1 : 0);
