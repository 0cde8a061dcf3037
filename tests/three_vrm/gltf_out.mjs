// SPDX-License-Identifier: MIT
// glTF out against an independent glTF implementation: three.js. For each
// source (an FBX, Collada or glTF file, or the built-in character) this
// runs `sinew convert SOURCE -o OUT.glb`, loads OUT.glb with three.js's
// GLTFLoader (in node, no renderer), plays each animation with an
// AnimationMixer at several times, and compares every node's world matrix
// (matched by glTF node index) and every skinned vertex (three.js's own CPU
// skinning, SkinnedMesh.getVertexPosition) with `sinew bake OUT.glb` at
// the same clip and times. The round-trip test (test_gltf_write) holds
// `sinew bake OUT.glb` to `sinew bake SOURCE`; this one holds a loader
// sinew did not write to the file sinew wrote. three.js skins with the
// four influences of JOINTS_0 and WEIGHTS_0 only: a file written with more
// (up to 8) is compared on its joints alone, and converted again with
// `--influences 4` (each vertex's 4 largest weights), whose skinned vertices
// are compared too.
//
// Usage: node gltf_out.mjs SINEW_EXE OUT_DIR [SOURCE...] [--assets DIR] [--verbose]
//   (no SOURCE: the built-in character; SOURCE may be MAIN+ANIM+ANIM...:
//   MAIN's character playing the clips of the ANIM files, --anim to sinew)
// Exit: 0 agree, 1 disagree, 2 usage or tool failure, 77 three.js missing.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';

// of the model's size (its bounding box diagonal at rest)
const TOLERANCE = 1e-5;

const args = process.argv.slice(2);
const verbose = args.includes('--verbose');
const at = args.indexOf('--assets');
const assets = at >= 0 ? args[at + 1] : null;
const [exe, outDir, ...sources] = args.filter((a, i) => a !== '--verbose' && i !== at && i !== at + 1);
if (assets) {
    // the built-in character, every shared glTF and Collada file, and the
    // pab character with its clips
    sources.push('');
    if (!existsSync(assets)) {
        console.log(`three.js: ${assets} is missing (the shared assets): the built-in character only`);
    } else {
        const files = (d, ext) => (existsSync(join(assets, d)) ? readdirSync(join(assets, d)) : [])
            .filter((f) => f.endsWith(ext)).sort().map((f) => join(assets, d, f));
        sources.push(...files('gltf', '.gltf'), ...files('collada', '.dae'), ...files('collada/pab', '.dae'));
        const pab = join(assets, 'fbx/pab');
        if (existsSync(join(pab, 'arnaud.fbx')))
            sources.push(['arnaud', 'walk', 'run', 'jog', 'crossarms'].map((f) => join(pab, `${f}.fbx`)).join('+'),
                         join(pab, 'skeleton.fbx'));
    }
}
if (!exe || !outDir) {
    console.error('usage: node gltf_out.mjs SINEW_EXE OUT_DIR [SOURCE...] [--verbose]');
    process.exit(2);
}

let THREE, GLTFLoader;
try {
    THREE = await import('three');
    ({ GLTFLoader } = await import('three/examples/jsm/loaders/GLTFLoader.js'));
} catch (e) {
    console.log(`skip: three.js is not installed in tests/three_vrm/node_modules (scripts/test installs it): ${e.code ?? e.message}`);
    process.exit(77);
}

mkdirSync(outDir, { recursive: true });

function sinew(...a) {
    return execFileSync(exe, a, { encoding: 'utf8', maxBuffer: 1 << 30 });
}

async function loadThree(file) {
    const bytes = readFileSync(file);
    const ab = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    return new Promise((resolve, reject) => new GLTFLoader().parse(ab, '', resolve, reject));
}

// three.js's pose at `time` of animation `clip`: world matrices by node
// name, and each skinned mesh's vertices in world space in file order.
function threePose(gltf, clip, time) {
    const scene = gltf.scene;
    // every node back at rest first: what a clip leaves out is the rest
    // pose, as sinew samples it, not the last pose played
    if (!gltf.rest) {
        gltf.rest = [];
        scene.traverse((o) => gltf.rest.push([o, o.position.clone(), o.quaternion.clone(), o.scale.clone()]));
    }
    for (const [o, p, q, s] of gltf.rest) o.position.copy(p), o.quaternion.copy(q), o.scale.copy(s);
    const mixer = new THREE.AnimationMixer(scene);
    if (clip >= 0) {
        const action = mixer.clipAction(gltf.animations[clip]);
        action.setLoop(THREE.LoopOnce, 1);
        action.clampWhenFinished = true;
        action.play();
        mixer.setTime(time);
    }
    scene.updateMatrixWorld(true);
    const nodes = new Map(); // glTF node index -> world matrix
    scene.traverse((o) => {
        const a = gltf.parser.associations.get(o);
        if (a && a.nodes !== undefined) nodes.set(a.nodes, o.matrixWorld.elements.slice());
    });
    const meshes = [];
    scene.traverse((o) => {
        if (!o.isSkinnedMesh) return;
        o.skeleton.update();
        const pos = o.geometry.attributes.position, v = new THREE.Vector3(), out = [];
        for (let i = 0; i < pos.count; ++i) {
            o.getVertexPosition(i, v);
            v.applyMatrix4(o.matrixWorld);
            out.push(v.x, v.y, v.z);
        }
        meshes.push({ name: o.name, positions: out });
    });
    return { nodes, meshes };
}

function diag(positions) {
    const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
    for (let i = 0; i < positions.length; i += 3)
        for (let k = 0; k < 3; ++k) lo[k] = Math.min(lo[k], positions[i + k]), hi[k] = Math.max(hi[k], positions[i + k]);
    return Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
}

let failed = false;
// each source, and (appended as they are found) those written with more
// than 4 influences again with --influences 4
const list = (sources.length ? sources.map((x) => x || null) : [null]).map((source) => ({ source, four: false }));
for (const { source, four } of list) {
    const parts = source ? source.split('+') : [];
    const name = (source ? parts.map((p) => basename(p)).join('+') : 'built-in') + (four ? ' --influences 4' : '');
    const out = join(outDir, `${name.replace(' --influences 4', '.influences4')}.glb`);
    const src = source ? [parts[0], ...parts.slice(1).flatMap((a) => ['--anim', a])] : [];
    const multi = source && parts.length > 1;
    sinew('convert', ...src, '-o', out, ...(four ? ['--influences', '4'] : []));
    const gltf = await loadThree(out);
    const clips = gltf.animations.length;
    const eight = (gltf.parser.json.meshes ?? []).some((m) => m.primitives.some((p) => 'JOINTS_1' in p.attributes));
    if (eight && four) {
        console.log(`three.js: ${name}: JOINTS_1 written`);
        failed = true;
    }
    if (eight) list.push({ source, four: true });
    let worstNode = 0, worstVertex = 0, size = 0, compared = 0, where = '';
    for (let clip = 0; clip < Math.max(clips, 1); ++clip) {
        const c = clips ? clip : -1;
        const duration = clips ? gltf.animations[clip].duration : 0;
        const times = [0, 0.13, 0.37, 0.5, 0.81, 1].map((f) => f * duration);
        const baked = JSON.parse(sinew('bake', out, '--clip', clips ? String(clip) : 'none', '--times', times.join(',')));
        if (!size) {
            const origins = baked.frames[0].nodes.flatMap((n) => n.world.slice(12, 15));
            size = Math.max(diag(origins), ...baked.frames[0].meshes.map((m) => diag(m.positions)));
        }
        baked.frames.forEach((frame, fi) => {
            const three = threePose(gltf, c, times[fi]);
            for (const n of frame.nodes) {
                const m = three.nodes.get(n.index);
                if (!m) {
                    console.log(`three.js: ${name}: nodes[${n.index}] ("${n.name}") is not in three.js's scene`);
                    failed = true;
                    continue;
                }
                // the 3x3 part as it is (scale-free for unscaled joints), the
                // translation over the model's size
                for (let k = 0; k < 15; ++k) {
                    if (k % 4 === 3) continue;
                    const d = Math.abs(m[k] - n.world[k]) / (k >= 12 ? size : Math.max(1, Math.abs(n.world[k])));
                    if (d > worstNode) (worstNode = d), (where = `clip ${clip} t ${times[fi].toFixed(3)} nodes[${n.index}] ${n.name}`);
                }
                ++compared;
            }
            const skinned = eight ? [] : frame.meshes.filter((m) => m.skinned);
            skinned.forEach((m, mi) => {
                const t = three.meshes[mi];
                if (!t || t.positions.length !== m.positions.length) {
                    console.log(`three.js: ${name}: mesh ${mi}: ${t ? t.positions.length / 3 : 0} vertices, sinew ${m.positions.length / 3}`);
                    failed = true;
                    return;
                }
                for (let i = 0; i < m.positions.length; ++i) {
                    const d = Math.abs(m.positions[i] - t.positions[i]) / size;
                    if (d > worstVertex) worstVertex = d;
                }
            });
        });
    }
    const ok = worstNode <= TOLERANCE && worstVertex <= TOLERANCE && compared > 0;
    console.log(`three.js: ${name}: ${clips} clip(s), ${compared} node poses within ${worstNode.toExponential(2)} ` +
        `of the model's size (${size.toPrecision(4)})${verbose && where ? ` (worst ${where})` : ''}; ` +
        (eight ? 'skinned vertices not compared (8 influences; three.js skins with 4)'
               : `skinned vertices within ${worstVertex.toExponential(2)}`) + ` ${ok ? 'ok' : 'DISAGREE'}`);
    if (!ok) failed = true;
}
process.exit(failed ? 1 : 0);
