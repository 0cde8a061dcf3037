// SPDX-License-Identifier: MIT
// Spring bones against an independent implementation: pixiv's three-vrm.
// For each case this writes a glTF with VRMC_springBone and a root-motion
// clip, runs `sinew bake FILE --springs --times ...` on it, runs three-vrm's
// VRMSpringBoneManager on the same nodes with the root set from the same
// keys at each step, and compares every joint's world position.
//
// Usage: node compare.mjs SINEW_EXE OUT_DIR [--verbose]
// Exit: 0 agree, 1 disagree, 2 usage or tool failure, 77 three-vrm missing.
//
// three-vrm departs from the VRMC_springBone 1.0 text in three places;
// this script patches its copy at run time (see patchReference):
// - the bone length is measured once, at initialisation, from the joint's
//   tail offset, instead of at every update from the child's world matrix
//   (which is stale: the child has not been updated yet this step);
// - the tail offset is the next joint's position in the joint's space at
//   rest, instead of the next joint's local position (which is relative to
//   a skipped node when the chain skips one);
// - dragForce defaults to 0.5 (the schema's), not 0.4.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const TOLERANCE = 1e-4; // of the chain's length
const DT = 1 / 60;
const STEPS = 300;
const COMPARE_EVERY = 5; // steps between compared frames

const [exe, outDir, ...rest] = process.argv.slice(2);
const verbose = rest.includes('--verbose');
if (!exe || !outDir) {
    console.error('usage: node compare.mjs SINEW_EXE OUT_DIR [--verbose]');
    process.exit(2);
}

let THREE, VRM;
try {
    THREE = await import('three');
    VRM = await import('@pixiv/three-vrm');
} catch (e) {
    console.log(`skip: three-vrm is not installed in tests/three_vrm/node_modules (scripts/test installs it): ${e.code ?? e.message}`);
    process.exit(77);
}

patchReference();

// ---- the reference, patched to the specification's text ----

function patchReference() {
    const J = VRM.VRMSpringBoneJoint.prototype;
    const setInitState = J.setInitState;
    // The tail offset and the length from the rest pose, in the joint's
    // space, measured once (the manager calls this with world matrices
    // current, parents first).
    J.setInitState = function () {
        setInitState.call(this);
        if (this.child) {
            this.child.updateWorldMatrix(true, false);
            const inv = new THREE.Matrix4().copy(this.bone.matrixWorld).invert();
            this._initialLocalChildPosition.setFromMatrixPosition(this.child.matrixWorld).applyMatrix4(inv);
            this._boneAxis.copy(this._initialLocalChildPosition).normalize();
            const m = this._getMatrixWorldToCenter();
            this.bone.localToWorld(this._currentTail.copy(this._initialLocalChildPosition)).applyMatrix4(m);
            this._prevTail.copy(this._currentTail);
        }
        const head = new THREE.Vector3().setFromMatrixPosition(this.bone.matrixWorld);
        const tail = this._initialLocalChildPosition.clone().applyMatrix4(this.bone.matrixWorld);
        this._fixedBoneLength = head.distanceTo(tail);
        this._worldSpaceBoneLength = this._fixedBoneLength;
    };
    J._calcWorldSpaceBoneLength = function () {
        this._worldSpaceBoneLength = this._fixedBoneLength;
    };
}

// ---- the cases ----

// Nodes: 0 root (driven by the clip), 1 body, 2 head; the chain hangs from
// the head's back: 3..8 (six joints, five bones), a little tilted so that
// gravity and stiffness pull different ways. With `skip`, node 9 sits
// between joints 5 and 6 and the spring skips it.
function makeCase({ name, motion, colliders, center, skip }) {
    const nodes = [
        { name: 'root', children: [1] },
        { name: 'body', children: [2], translation: [0, 1, 0] },
        { name: 'head', children: [3], translation: [0, 0.5, 0] },
        { name: 'hair0', children: [4], translation: [0, 0.05, -0.12] },
        { name: 'hair1', children: [5], translation: [0, -0.1, -0.04] },
        { name: 'hair2', children: [skip ? 9 : 6], translation: [0.02, -0.1, -0.03] },
        { name: 'hair3', children: [7], translation: skip ? [0, -0.05, 0] : [0, -0.1, -0.02] },
        { name: 'hair4', children: [8], translation: [0, -0.1, -0.01] },
        { name: 'hair5', translation: [0, -0.1, 0] },
    ];
    if (skip) nodes.push({ name: 'hair2b', children: [6], translation: [0, -0.05, -0.02], rotation: [0, 0, 0.0998334, 0.9950042] });
    const ext = { specVersion: '1.0' };
    const spring = {
        name: 'hair',
        joints: [
            { node: 3, hitRadius: 0.02, stiffness: 0.6, gravityPower: 0.4, gravityDir: [0, -1, 0], dragForce: 0.3 },
            { node: 4, hitRadius: 0.02, stiffness: 0.5, gravityPower: 0.5 },
            { node: 5, hitRadius: 0.02, stiffness: 0.4, gravityPower: 0.5, gravityDir: [0.3, -1, 0] },
            { node: 6, hitRadius: 0.02, stiffness: 0.3, gravityPower: 0.6, dragForce: 0.2 },
            { node: 7, hitRadius: 0.02, stiffness: 0.2, gravityPower: 0.6 },
            { node: 8 },
        ],
    };
    if (colliders) {
        // a sphere around the head and a capsule down the back, both close
        // enough that the hanging chain touches them
        ext.colliders = [
            { node: 2, shape: { sphere: { offset: [0, 0.05, 0], radius: 0.14 } } },
            { node: 1, shape: { capsule: { offset: [0, 0.3, -0.1], radius: 0.12, tail: [0, -0.2, -0.1] } } },
        ];
        ext.colliderGroups = [{ name: 'head', colliders: [0] }, { name: 'back', colliders: [1] }];
        spring.colliderGroups = [0, 1];
    }
    if (center) spring.center = 1;
    ext.springs = [spring];

    // root motion: LINEAR keys at 60 Hz, one per step
    const frames = STEPS + 1;
    const times = new Float32Array(frames), trans = new Float32Array(frames * 3), rot = new Float32Array(frames * 4);
    for (let k = 0; k < frames; ++k) {
        const t = k * DT;
        const { p, yaw } = motion(t);
        times[k] = t;
        trans.set(p, k * 3);
        rot.set([0, Math.sin(yaw / 2), 0, Math.cos(yaw / 2)], k * 4);
    }
    const bin = Buffer.concat([Buffer.from(times.buffer), Buffer.from(trans.buffer), Buffer.from(rot.buffer)]);
    const gltf = {
        asset: { version: '2.0' },
        extensionsUsed: ['VRMC_springBone'],
        scene: 0,
        scenes: [{ nodes: [0] }],
        nodes,
        buffers: [{ byteLength: bin.length, uri: 'data:application/octet-stream;base64,' + bin.toString('base64') }],
        bufferViews: [
            { buffer: 0, byteOffset: 0, byteLength: frames * 4 },
            { buffer: 0, byteOffset: frames * 4, byteLength: frames * 12 },
            { buffer: 0, byteOffset: frames * 16, byteLength: frames * 16 },
        ],
        accessors: [
            { bufferView: 0, componentType: 5126, count: frames, type: 'SCALAR', min: [0], max: [times[frames - 1]] },
            { bufferView: 1, componentType: 5126, count: frames, type: 'VEC3' },
            { bufferView: 2, componentType: 5126, count: frames, type: 'VEC4' },
        ],
        animations: [{
            name,
            samplers: [
                { input: 0, output: 1, interpolation: 'LINEAR' },
                { input: 0, output: 2, interpolation: 'LINEAR' },
            ],
            channels: [
                { sampler: 0, target: { node: 0, path: 'translation' } },
                { sampler: 1, target: { node: 0, path: 'rotation' } },
            ],
        }],
        extensions: { VRMC_springBone: ext },
    };
    return { name, gltf, trans, rot };
}

const motions = {
    still: () => ({ p: [0, 0, 0], yaw: 0 }),
    sway: (t) => ({ p: [0.3 * Math.sin(2 * Math.PI * 1.2 * t), 0, 0.1 * Math.sin(2 * Math.PI * 0.6 * t)], yaw: 0 }),
    turn: (t) => ({ p: [0, 0, 0], yaw: 2 * Math.PI * 0.5 * t * Math.min(1, t) }),
    jump: (t) => ({ p: [0, 0.5 * Math.abs(Math.sin(2 * Math.PI * 0.8 * t)), 0], yaw: 0 }),
};

const cases = [];
for (const [m, motion] of Object.entries(motions)) {
    for (const colliders of [false, true]) {
        for (const center of [false, true]) {
            const name = `${m}${colliders ? '-colliders' : ''}${center ? '-center' : ''}`;
            cases.push(makeCase({ name, motion, colliders, center, skip: false }));
        }
    }
}
cases.push(makeCase({ name: 'sway-colliders-skip', motion: motions.sway, colliders: true, center: false, skip: true }));

// ---- three-vrm on a case ----

function runReference(c) {
    const { gltf } = c;
    const objs = gltf.nodes.map((n) => {
        const o = new THREE.Object3D();
        o.name = n.name;
        if (n.translation) o.position.fromArray(n.translation);
        if (n.rotation) o.quaternion.fromArray(n.rotation);
        if (n.scale) o.scale.fromArray(n.scale);
        return o;
    });
    gltf.nodes.forEach((n, i) => (n.children ?? []).forEach((ch) => objs[i].add(objs[ch])));
    const scene = new THREE.Object3D();
    scene.add(objs[0]);
    const root = objs[0];
    const setRoot = (k) => {
        root.position.fromArray(c.trans, k * 3);
        root.quaternion.fromArray(c.rot, k * 4);
    };
    setRoot(0);
    scene.updateMatrixWorld(true);

    const ext = gltf.extensions.VRMC_springBone;
    const colliders = (ext.colliders ?? []).map((col) => {
        const s = col.shape;
        const shape = s.sphere
            ? new VRM.VRMSpringBoneColliderShapeSphere({ offset: new THREE.Vector3().fromArray(s.sphere.offset ?? [0, 0, 0]), radius: s.sphere.radius ?? 0 })
            : new VRM.VRMSpringBoneColliderShapeCapsule({ offset: new THREE.Vector3().fromArray(s.capsule.offset ?? [0, 0, 0]), radius: s.capsule.radius ?? 0, tail: new THREE.Vector3().fromArray(s.capsule.tail ?? [0, 0, 0]) });
        const o = new VRM.VRMSpringBoneCollider(shape);
        objs[col.node].add(o);
        return o;
    });
    const groups = (ext.colliderGroups ?? []).map((g) => ({ name: g.name, colliders: g.colliders.map((i) => colliders[i]) }));
    const manager = new VRM.VRMSpringBoneManager();
    const jointNodes = [];
    for (const spring of ext.springs) {
        const cg = (spring.colliderGroups ?? []).map((i) => groups[i]);
        for (let i = 0; i + 1 < spring.joints.length; ++i) {
            const j = spring.joints[i];
            const joint = new VRM.VRMSpringBoneJoint(objs[j.node], objs[spring.joints[i + 1].node], {
                hitRadius: j.hitRadius ?? 0,
                stiffness: j.stiffness ?? 1,
                gravityPower: j.gravityPower ?? 0,
                gravityDir: new THREE.Vector3().fromArray(j.gravityDir ?? [0, -1, 0]).normalize(),
                dragForce: j.dragForce ?? 0.5, // the schema's default
            }, cg);
            if (spring.center != null) joint.center = objs[spring.center];
            manager.addJoint(joint);
        }
        for (const j of spring.joints) jointNodes.push(j.node);
    }
    scene.updateMatrixWorld(true);
    manager.setInitState();

    const out = new Map();
    const record = (k) => out.set(k, jointNodes.map((n) => new THREE.Vector3().setFromMatrixPosition(objs[n].matrixWorld).toArray()));
    record(0);
    for (let k = 1; k <= STEPS; ++k) {
        setRoot(k);
        scene.updateMatrixWorld(true);
        manager.update(DT);
        if (k % COMPARE_EVERY === 0) record(k);
    }
    let length = 0;
    for (const spring of ext.springs) {
        for (let i = 0; i + 1 < spring.joints.length; ++i) {
            const a = new THREE.Vector3().setFromMatrixPosition(objs[spring.joints[i].node].matrixWorld);
            const b = new THREE.Vector3().setFromMatrixPosition(objs[spring.joints[i + 1].node].matrixWorld);
            length += a.distanceTo(b);
        }
    }
    return { positions: out, jointNodes, length };
}

// ---- sinew on a case ----

function runSinew(c, file, compared) {
    const times = compared.map((k) => (k * DT).toPrecision(9)).join(',');
    const json = join(outDir, `${c.name}.bake.json`);
    execFileSync(exe, ['bake', file, '--springs', '--times', times, '--json', json], { stdio: ['ignore', 'ignore', 'inherit'] });
    return JSON.parse(readFileSync(json, 'utf8'));
}

// ---- compare ----

mkdirSync(outDir, { recursive: true });
let failed = 0;
const refs = new Map();
const compared = [];
for (let k = 0; k <= STEPS; k += COMPARE_EVERY) compared.push(k);
for (const c of cases) {
    const file = join(outDir, `${c.name}.gltf`);
    writeFileSync(file, JSON.stringify(c.gltf));
    const ref = runReference(c);
    refs.set(c.name, ref);
    let bake;
    try {
        bake = runSinew(c, file, compared);
    } catch (e) {
        console.error(`three_vrm: ${c.name}: sinew bake failed: ${e.message}`);
        process.exit(2);
    }
    let worst = 0, worstAt = '';
    bake.frames.forEach((frame, fi) => {
        const k = compared[fi];
        const want = ref.positions.get(k);
        ref.jointNodes.forEach((n, ji) => {
            const w = frame.nodes.find((x) => x.index === n).world;
            const d = Math.hypot(w[12] - want[ji][0], w[13] - want[ji][1], w[14] - want[ji][2]);
            if (d > worst) { worst = d; worstAt = `step ${k}, nodes[${n}]`; }
        });
    });
    const rel = worst / ref.length;
    const ok = rel <= TOLERANCE;
    if (!ok) ++failed;
    console.log(`three_vrm: ${c.name}: largest difference ${worst.toExponential(2)} m = ${rel.toExponential(2)} of the chain (${ref.length.toFixed(3)} m)${worstAt ? ' at ' + worstAt : ''} ${ok ? 'ok' : 'FAIL'}`);
}
// The cases test something only where the colliders touch the chain and
// the center changes what the root's motion does to it.
function apart(a, b) {
    let worst = 0;
    for (const [k, pa] of refs.get(a).positions) {
        const pb = refs.get(b).positions.get(k);
        pa.forEach((p, i) => (worst = Math.max(worst, Math.hypot(p[0] - pb[i][0], p[1] - pb[i][1], p[2] - pb[i][2]))));
    }
    return worst / refs.get(a).length;
}
for (const m of Object.keys(motions)) {
    const pairs = [[m, `${m}-colliders`], [`${m}-center`, `${m}-colliders-center`]];
    if (m !== 'still') pairs.push([m, `${m}-center`], [`${m}-colliders`, `${m}-colliders-center`]);
    for (const [a, b] of pairs) {
        const d = apart(a, b);
        if (verbose || d < 0.05) console.log(`three_vrm: ${a} and ${b} are ${d.toFixed(3)} of the chain apart${d < 0.05 ? ': too close to tell, FAIL' : ''}`);
        if (d < 0.05) ++failed;
    }
}
if (failed) {
    console.log(`three_vrm: ${failed} of ${cases.length} cases differ by more than ${TOLERANCE} of the chain's length`);
    process.exit(1);
}
