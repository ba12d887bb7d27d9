#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Every operation of the operations table through every surface it has.

usage: ops_agree.py CLAWSSH SANDBOX WORKSPACE

SANDBOX is a remote-mode sandbox (its files on the host) whose ssh
settings are the user's defaults; WORKSPACE its local directory.  Each
operation is called through the CLI, JSON-RPC (`serve --stdio`) and MCP
(`serve --mcp -s SANDBOX`) where the table offers it there, and the
results are compared after taking out what must differ (handles, times).
The methods `rpc.methods` lists and the tools `tools/list` lists must all
be covered here: a new operation without a case fails this test.
Prints one line a check; exits 1 on the first disagreement.
"""
import json
import os
import subprocess
import sys
import time

CLAW, BOX, WS = sys.argv[1:4]
covered = set()


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def same(what, *vals):
    """All vals equal, else fail naming what."""
    for v in vals[1:]:
        if v != vals[0]:
            fail("%s: the surfaces disagree: %r" % (what, vals))
    print("ok: %s: %r" % (what, vals[0]))


def cli(*args, stdin=None):
    """clawssh ARGS: (status, stdout, stderr)."""
    p = subprocess.run([CLAW] + list(args), input=stdin,
                       capture_output=True, timeout=120)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def cli_json(*args, stdin=None):
    rc, out, err = cli(*args, stdin=stdin)
    if rc != 0:
        fail("clawssh %s: status %d: %s" % (" ".join(args), rc, err))
    return json.loads(out)


class Session:
    """A line-JSON session with a `clawssh serve` process."""

    def __init__(self, *args):
        self.p = subprocess.Popen([CLAW, "serve"] + list(args),
                                  stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE)
        self.n = 0

    def call(self, method, params):
        """Send one request: (response, its notifications)."""
        self.n += 1
        req = {"jsonrpc": "2.0", "id": self.n, "method": method,
               "params": params}
        self.p.stdin.write((json.dumps(req) + "\n").encode())
        self.p.stdin.flush()
        notes = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                fail("serve closed the connection during " + method)
            m = json.loads(line)
            if m.get("id") == self.n:
                return m, notes
            notes.append(m)

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=60)


rpc = Session("--stdio")
mcp = Session("--mcp", "-s", BOX)
r, _ = mcp.call("initialize", {"protocolVersion": "2025-06-18",
                               "capabilities": {},
                               "clientInfo": {"name": "ops_agree",
                                              "version": "1"}})
if "result" not in r:
    fail("MCP initialize: %r" % r)


def rpc_ok(method, params):
    covered.add(method)
    r, notes = rpc.call(method, params)
    if "result" not in r:
        fail("JSON-RPC %s %r: %r" % (method, params, r))
    return r["result"], notes


def mcp_ok(tool, args, failed=False):
    """A tool's structuredContent; isError only when failed is set."""
    covered.add("tool:" + tool)
    r, _ = mcp.call("tools/call", {"name": tool, "arguments": args})
    res = r.get("result")
    if res is None or bool(res.get("isError")) != failed:
        fail("MCP %s %r: %r" % (tool, args, r))
    return res.get("structuredContent")


def B(**kw):
    kw["sandbox"] = BOX
    return kw


def host_file(path):
    """A file of the sandbox's workspace, read by the CLI."""
    rc, out, err = cli("read", "-s", BOX, path)
    if rc != 0:
        fail("read %s: %s" % (path, err))
    return out


def stdout_of(notes):
    """The stdout an exec's exec.output notifications carried."""
    return "".join(n["params"].get("data", "") for n in notes
                   if n.get("method") == "exec.output" and
                   n["params"]["stream"] == "stdout")


def exec_cases():
    cmd = ["sh", "-c", "echo out; echo err >&2; exit 3"]
    rc, out, err = cli("exec", "-s", BOX, "--", *cmd)
    res, notes = rpc_ok("exec", B(argv=cmd))
    rout = stdout_of(notes)
    m = mcp_ok("exec", {"argv": cmd}, failed=True)	# exit 3: isError
    same("exec stdout", out, rout, m["stdout"])
    same("exec status", rc, res["exit_status"], m["exitCode"])
    rc, out, _ = cli("exec", "-s", BOX, "--env", "OA_X=1", "--cwd", ".",
                     "--timeout", "30", "--", "sh", "-c", "echo $OA_X")
    _, notes = rpc_ok("exec", B(argv=["sh", "-c", "echo $OA_X"],
                                env={"OA_X": "1"}, cwd=".", timeout=30))
    rout = stdout_of(notes)
    m = mcp_ok("exec", {"command": "echo $OA_X", "env": {"OA_X": "1"},
                        "cwd": ".", "timeout": 30})
    same("exec env, cwd, timeout", out, rout, m["stdout"])


def fs_cases():
    text = "one\ntwo\nthree\n"
    rc, _, err = cli("write", "-s", BOX, "w-cli.txt", stdin=text.encode())
    if rc != 0:
        fail("write: " + err)
    rpc_ok("fs.write", B(path="w-rpc.txt", content=text))
    mcp_ok("write_file", {"path": "w-mcp.txt", "content": text})
    same("write", host_file("w-cli.txt"), host_file("w-rpc.txt"),
         host_file("w-mcp.txt"))
    _, out, _ = cli("read", "-s", BOX, "--offset", "1", "--limit", "1",
                    "--lines", "w-cli.txt")
    r, _ = rpc_ok("fs.read", B(path="w-cli.txt", offset=1, limit=1,
                               lines=True))
    m = mcp_ok("read_file", {"path": "w-cli.txt", "offset": 1, "limit": 1,
                             "lines": True})
    same("read a line range", out, r["content"], m["content"])
    cli("edit", "-s", BOX, "--old", "two", "--new", "2", "w-cli.txt")
    rpc_ok("fs.edit", B(path="w-rpc.txt", old="two", new="2"))
    mcp_ok("edit_file", {"path": "w-mcp.txt", "old": "two", "new": "2"})
    same("edit", host_file("w-cli.txt"), host_file("w-rpc.txt"),
         host_file("w-mcp.txt"))
    patch = ("--- a/%s\n+++ b/%s\n@@ -1,3 +1,3 @@\n one\n-2\n+II\n"
             " three\n")
    cli("apply-patch", "-s", BOX,
        stdin=(patch % ("w-cli.txt", "w-cli.txt")).encode())
    rpc_ok("fs.applyPatch", B(patch=patch % ("w-rpc.txt", "w-rpc.txt")))
    mcp_ok("apply_patch", {"patch": patch % ("w-mcp.txt", "w-mcp.txt")})
    same("apply-patch", host_file("w-cli.txt"), host_file("w-rpc.txt"),
         host_file("w-mcp.txt"))
    names = lambda es: sorted((e["name"], e["type"]) for e in es)
    c = cli_json("ls", "-s", BOX, "--json")
    r, _ = rpc_ok("fs.ls", B())
    m = mcp_ok("list_dir", {})
    same("ls", names(c), names(r["entries"]), names(m["entries"]))
    pick = lambda e: (e["name"], e["type"], e["size"])
    c = cli_json("stat", "-s", BOX, "--json", "w-cli.txt")
    r, _ = rpc_ok("fs.stat", B(path="w-cli.txt"))
    m = mcp_ok("stat", {"path": "w-cli.txt"})
    same("stat", pick(c), pick(r), pick(m))


def proc_wait_done(h):
    for _ in range(100):
        st = cli_json("process", "poll", "-s", BOX, "--json", h)
        if st["state"] != "running":
            return
        time.sleep(0.1)
    fail("process %s did not end" % h)


def process_cases():
    cmd = ["sh", "-c", "read x; echo got $x"]
    hc = cli_json("process", "start", "-s", BOX, "--json", "--name", "oa",
                  "--", *cmd)["handle"]
    hr = rpc_ok("process.start", B(argv=cmd, name="oa"))[0]["handle"]
    hm = mcp_ok("process_start", {"argv": cmd, "name": "oa"})["handle"]
    cli("process", "write", "-s", BOX, "--eof", hc, stdin=b"x\n")
    rpc_ok("process.write", B(handle=hr, data="x\n", eof=True))
    mcp_ok("process_write", {"handle": hm, "data": "x\n", "eof": True})
    c = cli_json("process", "wait", "-s", BOX, "--json", "--timeout", "20",
                 hc)
    r, _ = rpc_ok("process.wait", B(handle=hr, timeout=20))
    m = mcp_ok("process_wait", {"handle": hm, "timeout": 20})
    st = lambda s: (s["state"], s["exit_status"])
    same("process wait", st(c), st(r), st(m))
    c = cli_json("process", "log", "-s", BOX, "--json", "--tail", "1", hc)
    r, _ = rpc_ok("process.log", B(handle=hr, tail=1))
    m = mcp_ok("process_log", {"handle": hm, "tail": 1})
    same("process log", c["output"], r["output"], m["output"])
    c = cli_json("process", "poll", "-s", BOX, "--json", hc)
    r, _ = rpc_ok("process.poll", B(handle=hr))
    m = mcp_ok("process_poll", {"handle": hm})
    same("process poll", st(c), st(r), st(m))
    names = lambda ps: sorted(p["handle"] for p in ps)
    c = cli_json("process", "list", "-s", BOX, "--json")
    r, _ = rpc_ok("process.list", B())
    m = mcp_ok("process_list", {})
    same("process list", names(c), names(r["processes"]),
         names(m["processes"]))
    sleeper = ["sleep", "60"]
    hs = [cli_json("process", "start", "-s", BOX, "--json", "--",
                   *sleeper)["handle"] for _ in range(3)]
    rc, _, err = cli("process", "kill", "-s", BOX, "--signal", "KILL", hs[0])
    rpc_ok("process.kill", B(handle=hs[1], signal="KILL"))
    mcp_ok("process_kill", {"handle": hs[2], "signal": "KILL"})
    for h in hs:
        proc_wait_done(h)
    same("process kill", *[cli_json("process", "poll", "-s", BOX, "--json",
                                    h)["state"] for h in hs])


def sync_cases():
    moved = []
    for how in ("cli", "rpc", "mcp"):
        with open(os.path.join(WS, "up-%s.txt" % how), "w") as f:
            f.write(how + "\n")
        path = "up-%s.txt" % how
        if how == "cli":
            moved.append(cli_json("sync", "push", "--json", BOX,
                                  path)["files"])
        elif how == "rpc":
            moved.append(rpc_ok("sync.push", B(paths=[path]))[0]["files"])
        else:
            moved.append(mcp_ok("sync_push", {"paths": [path]})["files"])
    same("sync push of one file", *moved)
    for how in ("cli", "rpc", "mcp"):
        os.unlink(os.path.join(WS, "up-%s.txt" % how))
    c = cli_json("sync", "pull", "--json", BOX, "up-cli.txt")["files"]
    r = rpc_ok("sync.pull", B(paths=["up-rpc.txt"]))[0]["files"]
    m = mcp_ok("sync_pull", {"paths": ["up-mcp.txt"]})["files"]
    same("sync pull of one file", c, r, m)
    rc, out, _ = cli("sync", "status", BOX)
    r, _ = rpc_ok("sync.status", B())
    same("sync status", rc == 0 and out, r["text"])


def sandbox_cases():
    ids = lambda a: sorted(s["id"] for s in a)
    c = cli_json("list", "--json")
    r, _ = rpc_ok("sandbox.list", {})
    same("list", ids(c), ids(r["sandboxes"]))
    pick = lambda s: (s["id"], s.get("mode"), s.get("state"))
    c = cli_json("status", "--json", BOX)
    r, _ = rpc_ok("sandbox.status", B())
    same("status", pick(c), pick(r))
    rc, out, _ = cli("ssh-config", BOX)
    r, _ = rpc_ok("sandbox.sshConfig", B())
    same("ssh-config", (rc, out), (0, r["text"]))
    image_cases()
    c = cli("prune", "--dry-run", "--idle-hours", "87600",
            "--max-age-days", "36500")[1]
    r, _ = rpc_ok("sandbox.prune", {"dry_run": True, "idle_hours": 87600,
                                    "max_age_days": 36500})
    same("prune (dry run, nothing old)", c, r["text"])
    made = []
    for how in ("cli", "rpc"):
        opts = {"host": "testhost", "key": "agree-" + how,
                "runtime": "none", "mode": "remote"}
        c = cli_json("provision", "--json", "--host", "testhost", "--key",
                     "agree-" + how, "--runtime", "none", "--mode",
                     "remote")
        r, _ = rpc_ok("sandbox.provision", opts)
        same("provision (get-or-create) " + how, c["id"], r["id"])
        made.append(c["id"])
    c = cli("recreate", made[0])
    r, _ = rpc_ok("sandbox.recreate", {"sandbox": made[1]})
    same("recreate", c[0], 0)
    print("ok: recreate: %r / %r" % (c[1].strip(), r["text"].strip()))
    env_cases()
    c = cli("destroy", made[0])
    r, _ = rpc_ok("sandbox.destroy", {"sandbox": made[1]})
    same("destroy", c[1].replace(made[0], "ID"),
         r["text"].replace(made[1], "ID"))
    left = ids(cli_json("list", "--json"))
    if made[0] in left or made[1] in left:
        fail("destroyed sandboxes still listed: %r" % left)


def image_cases():
    """image import, list and rm: each through the CLI and JSON-RPC."""
    tree = os.path.join(WS, ".img")
    os.makedirs(os.path.join(tree, "etc"), exist_ok=True)
    with open(os.path.join(tree, "etc", "os-release"), "w") as f:
        f.write("ID=agree\n")
    tarball = os.path.join(os.path.dirname(WS), "img-%d.tar" % os.getpid())
    subprocess.run(["tar", "-C", tree, "-cf", tarball, "."], check=True)
    rc, out, err = cli("image", "import", "--host", "testhost", "img-cli",
                       tarball)
    r, _ = rpc_ok("image.import", {"host": "testhost", "name": "img-rpc",
                                   "tarball": tarball})
    same("image import", (rc, out.replace("img-cli", "NAME")),
         (0, r["text"].replace("img-rpc", "NAME")))
    names = lambda a: sorted(i["name"] for i in a)
    c = cli_json("image", "list", "--host", "testhost", "--json")
    r, _ = rpc_ok("image.list", {"host": "testhost"})
    same("image list", names(c), names(r["images"]), ["img-cli", "img-rpc"])
    rc, out, err = cli("image", "rm", "--host", "testhost", "img-cli")
    r, _ = rpc_ok("image.rm", {"host": "testhost", "name": "img-rpc"})
    same("image rm", (rc, out), (0, r["text"]))
    same("image list after rm", cli_json("image", "list", "--host",
                                         "testhost", "--json"), [])
    os.unlink(tarball)
    subprocess.run(["rm", "-rf", tree], check=True)


def env_cases():
    """stop and start, on a bwrap sandbox (runtime none keeps none)."""
    if subprocess.run(["sh", "-c", "command -v bwrap"],
                      capture_output=True).returncode != 0:
        print("skip: stop, start: no bwrap")
        covered.update(("sandbox.stop", "sandbox.start"))
        return
    box = cli_json("provision", "--json", "--host", "testhost", "--key",
                   "agree-env", "--runtime", "bwrap", "--mode",
                   "remote")["id"]
    state = lambda o: (o["id"] == box, o["state"])
    c1 = cli_json("start", "--json", box)
    c2 = cli_json("stop", "--json", box)
    r1, _ = rpc_ok("sandbox.start", {"sandbox": box})
    r2, _ = rpc_ok("sandbox.stop", {"sandbox": box})
    same("start", state(c1), state(r1))
    same("stop", state(c2), state(r2))
    cli("destroy", box)


exec_cases()
fs_cases()
process_cases()
sync_cases()
sandbox_cases()

methods, _ = rpc.call("rpc.methods", {})
tools, _ = mcp.call("tools/list", {})
want = set(methods["result"]) | set(
    "tool:" + t["name"] for t in tools["result"]["tools"]
    if t["name"] != "read_output")	# cut output: mcp_spec.sh and unit tests
missing = sorted(want - covered)
if missing:
    fail("operations without a case here: %s" % ", ".join(missing))
rpc.close()
mcp.close()
print("ops_agree: %d methods and tools, each through every surface it has"
      % len(want))
