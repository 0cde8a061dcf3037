// SPDX-License-Identifier: MIT
// Reads gltfpack's EXT_meshopt_compression copies of the shared glTF
// assets and checks that they bake (sinew bake) as their originals do.
//
// Usage: node compare.mjs SINEW OUTDIR ASSETDIR
//
// Each asset is packed three ways: `-c` (gltfpack's quantization and
// EXT_meshopt_compression without filters), `-cc` (the same with the
// OCTAHEDRAL and QUATERNION filters) and `-c -noq` (meshopt over float
// vertex data), each with `-af 0`: gltfpack otherwise resamples clips at
// 30 Hz, which changes the curves and durations themselves (what gltfpack
// does, not what sinew reads).
// gltfpack rebuilds the scene: it merges meshes, drops and reorders
// vertices and unnamed nodes, and wraps quantized meshes in nodes of its
// own. So what is compared is what survives that, at times 0, the first
// clip's first and last key and its duration (the clip matched by name:
// gltfpack may reorder animations):
//  - the clip's duration, to 1e-4 s;
//  - every named node's world matrix, matched by name (translation to
//    `tol` of the scene's size, rotation and scale to `tol` of 1);
//  - all mesh positions in world space as sets: every vertex of one side
//    lies within `tol` of the scene's size of some vertex of the other
//    (vertex order and duplicates aside), and the two sides' bounds agree.
// tol is 2e-3 of the size: positions lie on a 14-bit grid of each mesh's
// box (gltfpack's -vp default: half of 1/16383 of its size per axis),
// clips' rotations on 12 bits (-ar: 1/4095 a component, -noq too) and
// skin weights on 8 bits (-noq too), so a skinned vertex moves by a few
// grid steps; the worst seen is 5.1e-4 (cesium_man, whose weights sinew
// renormalizes). Meshopt itself is lossless: the -noq copies of the files
// without skins or rotations (triangle, interpolation_test's meshes)
// match to 0.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const [sinew, outDir, assetDir] = process.argv.slice(2);
const here = path.dirname(fileURLToPath(import.meta.url));
const gltfpack = path.join(here, 'node_modules', 'gltfpack', 'cli.js');
if (!fs.existsSync(gltfpack)) {
    console.log(`skip: ${gltfpack} is missing (scripts/test installs it: npm ci --prefix tests/gltfpack)`);
    process.exit(77);
}
if (!fs.existsSync(assetDir)) {
    console.log(`skip: ${assetDir} is missing (the shared assets)`);
    process.exit(77);
}
fs.mkdirSync(outDir, { recursive: true });

let failures = 0;
const fail = (msg) => { console.log(`FAIL ${msg}`); ++failures; };

function bake(file, times, clip) {
    const args = ['bake', file, '--times', times.join(',')];
    if (clip) args.push('--clip', clip);
    const out = execFileSync(sinew, args, { maxBuffer: 1 << 28 });
    return JSON.parse(out);
}

function worldPositions(frame) {
    const p = [];
    for (const m of frame.meshes) for (let i = 0; i + 2 < m.positions.length; i += 3) p.push(m.positions.slice(i, i + 3));
    return p;
}

function bounds(points) {
    const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
    for (const q of points) for (let k = 0; k < 3; ++k) lo[k] = Math.min(lo[k], q[k]), hi[k] = Math.max(hi[k], q[k]);
    return { lo, hi, size: Math.max(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2], 1e-9) };
}

// the largest distance from a point of `a` to its nearest in `b` (a grid of cells `cell` wide)
function farthestNearest(a, b, cell) {
    const grid = new Map();
    const key = (x, y, z) => `${x},${y},${z}`;
    for (const q of b) {
        const k = key(Math.floor(q[0] / cell), Math.floor(q[1] / cell), Math.floor(q[2] / cell));
        if (!grid.has(k)) grid.set(k, []);
        grid.get(k).push(q);
    }
    let worst = 0;
    for (const q of a) {
        const cx = Math.floor(q[0] / cell), cy = Math.floor(q[1] / cell), cz = Math.floor(q[2] / cell);
        let best = Infinity;
        for (let dx = -1; dx <= 1; ++dx) for (let dy = -1; dy <= 1; ++dy) for (let dz = -1; dz <= 1; ++dz)
            for (const r of grid.get(key(cx + dx, cy + dy, cz + dz)) || [])
                best = Math.min(best, Math.hypot(q[0] - r[0], q[1] - r[1], q[2] - r[2]));
        worst = Math.max(worst, best);
    }
    return worst;
}

function keyTimes(file) {
    const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
    const anim = doc.animations && doc.animations[0];
    if (!anim) return [];
    const acc = doc.accessors[anim.samplers[0].input];
    return acc.min ? [acc.min[0], acc.max[0]] : [];
}

const variants = [
    { name: 'c', args: ['-c', '-af', '0'], tol: 2e-3 },
    { name: 'cc', args: ['-cc', '-af', '0'], tol: 2e-3 },
    { name: 'noq', args: ['-c', '-noq', '-af', '0'], tol: 2e-3 },
];
const worst = {};
for (const asset of fs.readdirSync(assetDir).filter((f) => f.endsWith('.gltf')).sort()) {
    const src = path.join(assetDir, asset);
    const ref0 = bake(src, [0]);
    const duration = ref0.clip ? ref0.clip.duration : 0;
    const clip = ref0.clip && ref0.clip.name ? ref0.clip.name : null; // gltfpack may reorder animations
    const times = [...new Set([0, ...keyTimes(src), duration].map((t) => Math.min(Math.max(t, 0), duration)))];
    const ref = bake(src, times);
    for (const v of variants) {
        const out = path.join(outDir, `${path.basename(asset, '.gltf')}.${v.name}.glb`);
        execFileSync(process.execPath, [gltfpack, '-i', src, '-o', out, ...v.args], { stdio: ['ignore', 'ignore', 'pipe'] });
        const json = fs.readFileSync(out).toString('latin1');
        if (!json.includes('"EXT_meshopt_compression"')) fail(`${out}: gltfpack wrote no EXT_meshopt_compression`);
        const got = bake(out, times, clip);
        const tag = `${asset} ${v.args.join(' ')}`;
        if (Math.abs((got.clip ? got.clip.duration : 0) - duration) > 1e-4)
            fail(`${tag}: duration ${got.clip && got.clip.duration} != ${duration}`);
        let nodeErr = 0, posErr = 0, boundErr = 0, named = 0;
        for (let f = 0; f < times.length; ++f) {
            const a = ref.frames[f], b = got.frames[f];
            const pa = worldPositions(a), pb = worldPositions(b);
            const box = bounds(pa), size = box.size;
            const byName = new Map();
            for (const n of b.nodes) if (n.name) byName.set(n.name, n);
            for (const n of a.nodes) {
                const m = n.name && byName.get(n.name);
                if (!m) continue;
                ++named;
                for (let k = 0; k < 16; ++k) {
                    const scale = k >= 12 ? size : 1;
                    nodeErr = Math.max(nodeErr, Math.abs(n.world[k] - m.world[k]) / scale);
                }
            }
            if (pa.length && pb.length) {
                const cell = Math.max(v.tol * size * 2, size / 200);
                posErr = Math.max(posErr, farthestNearest(pa, pb, cell) / size, farthestNearest(pb, pa, cell) / size);
                const bb = bounds(pb);
                for (let k = 0; k < 3; ++k)
                    boundErr = Math.max(boundErr, Math.abs(box.lo[k] - bb.lo[k]) / size, Math.abs(box.hi[k] - bb.hi[k]) / size);
            } else if (pa.length !== pb.length) {
                fail(`${tag}: ${pa.length} vertices baked from the original, ${pb.length} from the copy`);
            }
        }
        const ok = nodeErr <= v.tol && posErr <= v.tol && boundErr <= v.tol;
        console.log(`${ok ? 'ok  ' : 'FAIL'} ${tag}: ${times.length} times, ${named / times.length} named nodes: ` +
            `world matrices ${nodeErr.toExponential(2)}, positions ${posErr.toExponential(2)}, bounds ` +
            `${boundErr.toExponential(2)} of the size (tolerance ${v.tol})`);
        if (!ok) ++failures;
        worst[v.name] = Math.max(worst[v.name] || 0, nodeErr, posErr, boundErr);
    }
}
console.log(`worst: ${Object.entries(worst).map(([k, e]) => `${k} ${e.toExponential(2)}`).join(', ')}`);
process.exit(failures ? 1 : 0);
