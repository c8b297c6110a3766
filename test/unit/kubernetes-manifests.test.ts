// deploy/kubernetes/ (issue 16): every manifest parses as YAML (1.1, as Kubernetes' go-yaml reads
// it, duplicate keys refused), and what must agree between the coordinator Job, its Service, the
// agents' Indexed Job, the token Secret, the scenario ConfigMap and the report claim does: labels,
// ports, the agent count, the token's variable and Secret key, the image, the scenario's path and
// validity (the project's own parser), the restart policy, and the agents' resources against the
// density figures the comments cite. Then each rule is shown to catch a broken copy.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { parseAllDocuments } from "yaml";
import { parseScenario, type Scenario } from "../../src/core/scenario-file/scenario.ts";
import { ROOT } from "./repo-files.ts";

const DIR = join(ROOT, "deploy/kubernetes");

/** Viewers one worker thread may carry by deploy/kubernetes/agents.yaml's sizing (bench/README.md, density). */
// the arena path is sized as the lean one until the deploy figures are measured on it
const VIEWERS_PER_WORKER = { lean: 250, arena: 250, werift: 150 } as const;
/** Peak RSS per viewer of the density table's multi-worker lean row (200 × 2), process base included. */
const RSS_PER_VIEWER_BYTES = 2078 * 1024;
const INDEX_ANNOTATION = "metadata.annotations['batch.kubernetes.io/job-completion-index']";

type Labels = Record<string, string>;
interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string }; fieldRef?: { fieldPath: string } };
}
interface Container {
  name: string;
  image?: string;
  args?: string[];
  env?: EnvVar[];
  ports?: { name?: string; containerPort: number; protocol?: string }[];
  volumeMounts?: { name: string; mountPath: string }[];
  resources?: { requests?: Labels; limits?: Labels };
}
interface Volume {
  name: string;
  configMap?: { name: string; items?: { key: string; path: string }[] };
  persistentVolumeClaim?: { claimName: string };
}
interface PodSpec {
  restartPolicy?: string;
  hostNetwork?: boolean;
  containers: Container[];
  volumes?: Volume[];
}
interface Manifest {
  file: string;
  kind: string;
  metadata: { name: string; labels?: Labels };
  data?: Labels;
  stringData?: Labels;
  spec?: {
    // Job
    completionMode?: string;
    parallelism?: number;
    completions?: number;
    backoffLimit?: number;
    template?: { metadata?: { labels?: Labels }; spec: PodSpec };
    // Service
    selector?: Labels;
    ports?: { name?: string; protocol?: string; port: number; targetPort?: number | string }[];
    // Pod
    containers?: Container[];
    volumes?: Volume[];
  };
}

function loadManifests(): Manifest[] {
  const out: Manifest[] = [];
  for (const file of readdirSync(DIR).filter((f) => f.endsWith(".yaml"))) {
    for (const doc of parseAllDocuments(readFileSync(join(DIR, file), "utf8"), { version: "1.1" })) {
      assert.deepEqual(doc.errors, [], `${file} parses`);
      const obj = doc.toJS() as Manifest | null;
      if (obj !== null) out.push({ ...obj, file });
    }
  }
  return out;
}

/** `--name value` or `--name=value`. */
function flag(args: readonly string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i >= 0) return args[i + 1];
  return args.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
}

function portOf(addr: string | undefined): number {
  return Number(/:(\d+)$/.exec(addr ?? "")?.[1] ?? Number.NaN);
}

/** Kubernetes quantities: cpu "3" / "2500m"; memory "1536Mi" / "1Gi" / "1G" / bytes. */
function quantity(q: string | undefined): number {
  const m = /^(\d+(?:\.\d+)?)(m|Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(q ?? "");
  if (m === null) return Number.NaN;
  const unit: Record<string, number> = {
    m: 1e-3,
    ...{ Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40 },
    ...{ k: 1e3, M: 1e6, G: 1e9, T: 1e12 },
  };
  return Number(m[1]) * (m[2] === undefined ? 1 : (unit[m[2]] ?? Number.NaN));
}

interface Parts {
  coordJob: Manifest;
  coord: Container;
  coordPod: PodSpec;
  agentJob: Manifest;
  agent: Container;
  agentPod: PodSpec;
}

function findParts(ms: readonly Manifest[], problems: string[]): Parts | null {
  const jobBy = (command: string) =>
    ms.find((m) => m.kind === "Job" && m.spec?.template?.spec.containers[0]?.args?.[0] === command);
  const coordJob = jobBy("run");
  const agentJob = jobBy("agent");
  const coordPod = coordJob?.spec?.template?.spec;
  const agentPod = agentJob?.spec?.template?.spec;
  const coord = coordPod?.containers[0];
  const agent = agentPod?.containers[0];
  if (coordJob === undefined || coordPod === undefined || coord === undefined) {
    problems.push("no Job runs `whipbench run` (the coordinator)");
    return null;
  }
  if (agentJob === undefined || agentPod === undefined || agent === undefined) {
    problems.push("no Job runs `whipbench agent`");
    return null;
  }
  return { coordJob, coord, coordPod, agentJob, agent, agentPod };
}

const selects = (selector: Labels, labels: Labels | undefined): boolean =>
  Object.entries(selector).every(([k, v]) => labels?.[k] === v);

/** The Service the agents dial, its selector, and its ports against the coordinator's flags and containerPorts. */
function checkService(ms: readonly Manifest[], p: Parts, problems: string[]): void {
  const target = flag(p.agent.args ?? [], "--coordinator") ?? "";
  const [host = "", port = ""] = target.split(":");
  const svc = ms.find(
    (m) => m.kind === "Service" && (host === m.metadata.name || host.startsWith(`${m.metadata.name}.`)),
  );
  if (svc === undefined) {
    problems.push(`agent --coordinator ${target}: no Service named ${host}`);
    return;
  }
  const selector = svc.spec?.selector ?? {};
  if (Object.keys(selector).length === 0) problems.push("the Service has no selector");
  if (!selects(selector, p.coordJob.spec?.template?.metadata?.labels))
    problems.push("the Service's selector does not match the coordinator's pod labels");
  if (selects(selector, p.agentJob.spec?.template?.metadata?.labels))
    problems.push("the Service's selector matches the agents' pods too");
  const args = p.coord.args ?? [];
  const control = portOf(flag(args, "--coordinator-listen"));
  if (Number(port) !== control)
    problems.push(`agent --coordinator port ${port} ≠ --coordinator-listen port ${control}`);
  const want = [
    ["TCP", control, "control"],
    ["UDP", control, "clock exchange"],
    ["TCP", control + 1, "send log"],
    ["TCP", portOf(flag(args, "--metrics")), "metrics"],
  ] as const;
  const svcPorts = svc.spec?.ports ?? [];
  const names = svcPorts.map((sp) => sp.name);
  if (new Set(names).size !== names.length || names.includes(undefined))
    problems.push("the Service's ports need distinct names");
  const containerPorts = p.coord.ports ?? [];
  for (const [proto, number, what] of want) {
    const sp = svcPorts.find((x) => (x.protocol ?? "TCP") === proto && x.port === number);
    const cp = containerPorts.find((x) => (x.protocol ?? "TCP") === proto && x.containerPort === number);
    if (sp === undefined) problems.push(`the Service lacks ${proto} ${number} (${what})`);
    if (cp === undefined)
      problems.push(`the coordinator container lacks containerPort ${proto} ${number} (${what})`);
    if (sp === undefined || cp === undefined) continue;
    const tp = sp.targetPort ?? sp.port;
    if (typeof tp === "string" ? tp !== cp.name : tp !== cp.containerPort)
      problems.push(`Service port ${sp.name ?? number} targets ${tp}, not the container's ${what} port`);
  }
}

/** Agent count, the index-based name, the restart policy of both Jobs, no hostNetwork. */
function checkJobs(p: Parts, problems: string[]): void {
  const agents = Number(flag(p.coord.args ?? [], "--agents"));
  const { completionMode, parallelism, completions } = p.agentJob.spec ?? {};
  if (completionMode !== "Indexed") problems.push("the agents Job is not Indexed");
  if (!(Number.isInteger(agents) && agents >= 1)) problems.push("the coordinator has no --agents N");
  if (parallelism !== agents || completions !== agents)
    problems.push(`agents Job parallelism ${parallelism} / completions ${completions} ≠ --agents ${agents}`);
  const name = flag(p.agent.args ?? [], "--name") ?? "";
  const ref = /\$\(([A-Za-z_][A-Za-z0-9_]*)\)/.exec(name)?.[1];
  const byIndex =
    ref === "JOB_COMPLETION_INDEX" ||
    p.agent.env?.some((e) => e.name === ref && e.valueFrom?.fieldRef?.fieldPath === INDEX_ANNOTATION) ===
      true;
  if (!byIndex) problems.push(`agent --name ${name} is not made from the pod's completion index`);
  for (const [what, job, pod] of [
    ["coordinator", p.coordJob, p.coordPod],
    ["agents", p.agentJob, p.agentPod],
  ] as const) {
    if (job.spec?.backoffLimit !== 0) problems.push(`${what} Job: backoffLimit must be 0 (no silent retry)`);
    if (pod.restartPolicy !== "Never") problems.push(`${what} Job: restartPolicy must be Never`);
    if (pod.hostNetwork === true) problems.push(`${what} Job: hostNetwork is on`);
  }
}

/** One image, one token variable from one Secret key (which the example Secret has, as a placeholder). */
function checkTokenAndImage(ms: readonly Manifest[], p: Parts, problems: string[]): void {
  const version = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string })
    .version;
  if (p.coord.image !== p.agent.image)
    problems.push(`images differ: coordinator ${p.coord.image}, agents ${p.agent.image}`);
  if (!(p.coord.image ?? "").endsWith(`whipbench:${version}`))
    problems.push(`coordinator image ${p.coord.image} is not whipbench:${version} (package.json)`);
  const refs = [p.coord, p.agent].map((c) => {
    const envName = flag(c.args ?? [], "--token-env");
    const ref = c.env?.find((e) => e.name === envName)?.valueFrom?.secretKeyRef;
    if (envName === undefined) problems.push(`${c.name}: no --token-env`);
    else if (ref === undefined)
      problems.push(`${c.name}: ${envName} is not set from a Secret (secretKeyRef)`);
    return `${envName}=${ref?.name}/${ref?.key}`;
  });
  if (refs[0] !== refs[1]) problems.push(`token differs: coordinator ${refs[0]}, agents ${refs[1]}`);
  const ref = p.coord.env?.find((e) => e.name === flag(p.coord.args ?? [], "--token-env"))?.valueFrom
    ?.secretKeyRef;
  const secret = ms.find((m) => m.kind === "Secret" && m.metadata.name === ref?.name);
  const value = secret?.stringData?.[ref?.key ?? ""] ?? secret?.data?.[ref?.key ?? ""];
  if (value === undefined) problems.push(`no example Secret ${ref?.name} with key ${ref?.key}`);
  else if (!/replace/i.test(value))
    problems.push(`the example Secret holds something other than a placeholder`);
}

/** The ConfigMap key mounted where the coordinator's scenario argument points, parsed by the project's parser. */
function scenarioOf(ms: readonly Manifest[], p: Parts, problems: string[]): Scenario | null {
  const path = p.coord.args?.[1] ?? "";
  const mount = p.coord.volumeMounts?.find((m) => path.startsWith(`${m.mountPath.replace(/\/$/, "")}/`));
  const volume = p.coordPod.volumes?.find((v) => v.name === mount?.name);
  const cm = ms.find((m) => m.kind === "ConfigMap" && m.metadata.name === volume?.configMap?.name);
  if (mount === undefined || cm === undefined) {
    problems.push(`the scenario ${path} is not on a mounted ConfigMap`);
    return null;
  }
  const file = path.slice(mount.mountPath.replace(/\/$/, "").length + 1);
  const key = volume?.configMap?.items?.find((i) => i.path === file)?.key ?? file;
  const text = cm.data?.[key];
  if (text === undefined) {
    problems.push(`ConfigMap ${cm.metadata.name} has no key ${key} for ${path}`);
    return null;
  }
  try {
    return parseScenario(text);
  } catch (err) {
    problems.push(`the scenario in ConfigMap ${cm.metadata.name}: ${(err as Error).message}`);
    return null;
  }
}

/** The scenario against the agents: enough viewers, no loopback, bearer variable on both sides, resources. */
function checkScenarioAndSizing(ms: readonly Manifest[], p: Parts, problems: string[]): void {
  const s = scenarioOf(ms, p, problems);
  if (s === null) return;
  const agents = Number(flag(p.coord.args ?? [], "--agents"));
  if (s.viewers < agents) problems.push(`${s.viewers} viewers for ${agents} agents`);
  if (s.loopbackOnly === true || s.includeLoopback === true)
    problems.push("the scenario pairs loopback candidates, which a media server outside the pod cannot use");
  for (const c of [p.coord, p.agent]) {
    if (s.bearerEnv !== undefined && c.env?.some((e) => e.name === s.bearerEnv) !== true)
      problems.push(`${c.name}: the scenario's bearerEnv ${s.bearerEnv} is not set`);
    const { requests = {}, limits = {} } = c.resources ?? {};
    for (const r of ["cpu", "memory"])
      if (!(quantity(requests[r]) > 0) || requests[r] !== limits[r])
        problems.push(`${c.name}: ${r} request and limit must be set and equal (Guaranteed QoS)`);
  }
  const workers = Number(flag(p.agent.args ?? [], "--workers"));
  if (!(Number.isInteger(workers) && workers >= 1)) {
    problems.push("the agents have no --workers N");
    return;
  }
  const perAgent = Math.ceil(s.viewers / agents);
  const perWorker = Math.ceil(perAgent / workers);
  const path = s.receivePath ?? "arena";
  if (perWorker > VIEWERS_PER_WORKER[path])
    problems.push(
      `${perWorker} viewers per worker thread, over the ${VIEWERS_PER_WORKER[path]} sized for ${path}`,
    );
  const { limits = {} } = p.agent.resources ?? {};
  if (quantity(limits["cpu"]) < workers + 1)
    problems.push(
      `agent cpu ${limits["cpu"]} < ${workers + 1} (a core per worker thread and the main thread)`,
    );
  if (quantity(limits["memory"]) < perAgent * RSS_PER_VIEWER_BYTES)
    problems.push(`agent memory ${limits["memory"]} < ${perAgent} viewers × 2078 KB`);
}

/** Both write to /reports; the coordinator's is a claim that exists and that the reader pod mounts. */
function checkReports(ms: readonly Manifest[], p: Parts, problems: string[]): void {
  for (const [c, pod] of [
    [p.coord, p.coordPod],
    [p.agent, p.agentPod],
  ] as const) {
    const out = flag(c.args ?? [], "--out");
    const mount = c.volumeMounts?.find((m) => m.mountPath === out);
    if (mount === undefined || !pod.volumes?.some((v) => v.name === mount.name))
      problems.push(`${c.name}: --out ${out} is not a mounted volume`);
  }
  const out = flag(p.coord.args ?? [], "--out");
  const mountName = p.coord.volumeMounts?.find((m) => m.mountPath === out)?.name;
  const claim = p.coordPod.volumes?.find((v) => v.name === mountName)?.persistentVolumeClaim?.claimName;
  if (!ms.some((m) => m.kind === "PersistentVolumeClaim" && m.metadata.name === claim))
    problems.push(`the coordinator's reports are not on a claim defined here (${claim})`);
  const reader = ms.find(
    (m) => m.kind === "Pod" && m.spec?.volumes?.some((v) => v.persistentVolumeClaim?.claimName === claim),
  );
  if (reader === undefined) problems.push(`no reader pod mounts the claim ${claim}`);
  else if (reader.spec?.containers?.[0]?.image !== p.coord.image)
    problems.push(`the reader pod's image is not the coordinator's ${p.coord.image}`);
}

function checkManifests(ms: readonly Manifest[]): string[] {
  const problems: string[] = [];
  const p = findParts(ms, problems);
  if (p === null) return problems;
  checkService(ms, p, problems);
  checkJobs(p, problems);
  checkTokenAndImage(ms, p, problems);
  checkScenarioAndSizing(ms, p, problems);
  checkReports(ms, p, problems);
  return problems;
}

test("deploy/kubernetes: the manifests parse and agree", () => {
  const ms = loadManifests();
  const kinds = ms.map((m) => `${m.kind}/${m.metadata.name}`).sort();
  assert.deepEqual(kinds, [
    "ConfigMap/whipbench-scenario",
    "Job/whipbench-agents",
    "Job/whipbench-coordinator",
    "PersistentVolumeClaim/whipbench-reports",
    "Pod/whipbench-report-reader",
    "Secret/whipbench-agent-token",
    "Service/whipbench-coordinator",
  ]);
  assert.deepEqual(checkManifests(ms), []);
});

/** A deep copy with the coordinator and agent parts at hand, for one mutation. */
function mutated(change: (ms: Manifest[], p: Parts) => void): string[] {
  const ms = structuredClone(loadManifests());
  const p = findParts(ms, []);
  assert.ok(p !== null);
  change(ms, p);
  return checkManifests(ms);
}

const byKind = (ms: Manifest[], kind: string): Manifest => {
  const m = ms.find((x) => x.kind === kind);
  assert.ok(m !== undefined, kind);
  return m;
};
const setFlag = (args: string[] | undefined, name: string, value: string): void => {
  assert.ok(args !== undefined);
  args[args.indexOf(name) + 1] = value;
};

/** Replaces the ConfigMap's scenario with a small one plus `extra` members. */
const scenario =
  (extra: string) =>
  (ms: Manifest[]): void => {
    const data = byKind(ms, "ConfigMap").data ?? {};
    data["scenario.json"] = `{"whep":"http://m/w","holdSeconds":1,${extra}}`;
  };

const BREAKAGES: ReadonlyArray<readonly [string, (ms: Manifest[], p: Parts) => void, RegExp]> = [
  [
    "selector",
    (ms) => Object.assign(byKind(ms, "Service").spec?.selector ?? {}, { "app.kubernetes.io/component": "x" }),
    /selector does not match the coordinator/,
  ],
  [
    "selector too wide",
    (ms) => delete byKind(ms, "Service").spec?.selector?.["app.kubernetes.io/component"],
    /matches the agents' pods too/,
  ],
  [
    "listen port",
    (_ms, p) => setFlag(p.coord.args, "--coordinator-listen", "0.0.0.0:7500"),
    /agent --coordinator port 7400 ≠ --coordinator-listen port 7500/,
  ],
  ["no UDP", (ms) => byKind(ms, "Service").spec?.ports?.splice(1, 1), /Service lacks UDP 7400/],
  [
    "send-log port",
    (ms) => Object.assign(byKind(ms, "Service").spec?.ports?.[2] ?? {}, { port: 7402 }),
    /Service lacks TCP 7401/,
  ],
  ["containerPort", (_ms, p) => p.coord.ports?.pop(), /lacks containerPort TCP 9464/],
  [
    "targetPort",
    (ms) => Object.assign(byKind(ms, "Service").spec?.ports?.[0] ?? {}, { targetPort: "metrics" }),
    /targets metrics/,
  ],
  ["metrics flag", (_ms, p) => setFlag(p.coord.args, "--metrics", "0.0.0.0:9090"), /lacks TCP 9090/],
  [
    "agent host",
    (_ms, p) => setFlag(p.agent.args, "--coordinator", "coordinator:7400"),
    /no Service named coordinator/,
  ],
  [
    "agent count",
    (_ms, p) => setFlag(p.coord.args, "--agents", "4"),
    /parallelism 3 \/ completions 3 ≠ --agents 4/,
  ],
  ["parallelism", (_ms, p) => Object.assign(p.agentJob.spec ?? {}, { parallelism: 2 }), /parallelism 2/],
  [
    "not indexed",
    (_ms, p) => Object.assign(p.agentJob.spec ?? {}, { completionMode: "NonIndexed" }),
    /not Indexed/,
  ],
  ["name", (_ms, p) => setFlag(p.agent.args, "--name", "agent"), /not made from the pod's completion index/],
  [
    "retry",
    (_ms, p) => Object.assign(p.coordJob.spec ?? {}, { backoffLimit: 6 }),
    /coordinator Job: backoffLimit/,
  ],
  [
    "restart",
    (_ms, p) => Object.assign(p.agentPod, { restartPolicy: "OnFailure" }),
    /agents Job: restartPolicy/,
  ],
  [
    "token name",
    (_ms, p) => setFlag(p.agent.args, "--token-env", "OTHER"),
    /agent: OTHER is not set from a Secret/,
  ],
  [
    "token key",
    (_ms, p) => Object.assign(p.agent.env?.[1]?.valueFrom?.secretKeyRef ?? {}, { key: "tok" }),
    /token differs/,
  ],
  [
    "real token",
    (ms) => Object.assign(byKind(ms, "Secret").stringData ?? {}, { token: "3f9a1c" }),
    /other than a placeholder/,
  ],
  ["image", (_ms, p) => Object.assign(p.agent, { image: "whipbench:0.0.9" }), /images differ/],
  [
    "mount",
    (_ms, p) => Object.assign(p.coord.volumeMounts?.[0] ?? {}, { mountPath: "/config" }),
    /not on a mounted ConfigMap/,
  ],
  [
    "scenario key",
    (ms) => Object.assign(byKind(ms, "ConfigMap"), { data: { "s.json": "{}" } }),
    /has no key scenario\.json/,
  ],
  ["bad scenario", scenario('"viewers":1500,"vewers":1'), /scenario: unknown key "vewers"/],
  ["loopback", scenario('"viewers":1500,"loopbackOnly":true'), /pairs loopback candidates/],
  [
    "bearer",
    scenario('"viewers":1500,"bearerEnv":"WHEP_TOKEN"'),
    /coordinator: the scenario's bearerEnv WHEP_TOKEN is not set/,
  ],
  ["viewers per worker", scenario('"viewers":3000'), /500 viewers per worker thread, over the 250/],
  [
    "cpu",
    (_ms, p) => Object.assign(p.agent.resources?.limits ?? {}, { cpu: "2" }),
    /agent: cpu request and limit must be set and equal|agent cpu 2 < 3/,
  ],
  [
    "memory",
    (_ms, p) =>
      Object.assign(p.agent, {
        resources: { requests: { cpu: "3", memory: "512Mi" }, limits: { cpu: "3", memory: "512Mi" } },
      }),
    /agent memory 512Mi < 500 viewers/,
  ],
  [
    "reports",
    (ms) => byKind(ms, "Pod").spec?.volumes?.pop(),
    /no reader pod mounts the claim whipbench-reports/,
  ],
  [
    "reader image",
    (ms) => Object.assign(byKind(ms, "Pod").spec?.containers?.[0] ?? {}, { image: "busybox" }),
    /reader pod's image is not/,
  ],
];

for (const [what, change, expected] of BREAKAGES) {
  test(`deploy/kubernetes: the check catches a broken ${what}`, () => {
    const problems = mutated(change);
    assert.ok(
      problems.some((x) => expected.test(x)),
      `expected ${expected} among ${JSON.stringify(problems)}`,
    );
  });
}

test("deploy/kubernetes: the README names every manifest, and the top README points to it", () => {
  const readme = readFileSync(join(DIR, "README.md"), "utf8");
  for (const file of readdirSync(DIR).filter((f) => f.endsWith(".yaml")))
    assert.ok(readme.includes(file), `deploy/kubernetes/README.md names ${file}`);
  assert.match(readme, /kubectl cp /);
  assert.match(readFileSync(join(ROOT, "README.md"), "utf8"), /\]\(deploy\/kubernetes\/(README\.md)?\)/);
});
