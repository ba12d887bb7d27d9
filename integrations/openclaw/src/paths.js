// SPDX-License-Identifier: BSD-2-Clause
// Paths between OpenClaw's two views of the workspace: the local
// directory (workspaceDir) and the sandbox's /workspace.  clawssh judges
// every path again (pathguard locally, the step jail on the host); this
// only maps and refuses what is plainly outside.
import path from "node:path";

export const CONTAINER_ROOT = "/workspace";

// relInside ROOT CANDIDATE (posix or native): CANDIDATE relative to ROOT
// ("" for ROOT itself), or null when it is outside.
function relInside(p, root, candidate) {
	const rel = p.relative(root, candidate);
	if (rel === "")
		return "";
	if (rel === ".." || rel.startsWith(`..${p.sep}`) || p.isAbsolute(rel))
		return null;
	return rel.split(p.sep).join("/");
}

// toRelative WORKSPACEDIR FILEPATH [CWD]: the workspace-relative posix
// path ("" for the root) that FILEPATH names, taken as a sandbox path
// (/workspace/...), a local path under WORKSPACEDIR, or relative to CWD
// (either view; default the root).  Throws for anything outside.
export function toRelative(workspaceDir, filePath, cwd) {
	const input = String(filePath ?? "").trim().replace(/\\/g, "/");
	const hostRoot = path.resolve(workspaceDir);
	let rel = null;
	if (input.startsWith("/")) {
		rel = relInside(path.posix, CONTAINER_ROOT, path.posix.normalize(input));
		if (rel === null)
			rel = relInside(path, hostRoot, path.resolve(input));
	} else {
		const base = cwd ? String(cwd).replace(/\\/g, "/") : CONTAINER_ROOT;
		let baseRel = relInside(path.posix, CONTAINER_ROOT,
		    path.posix.normalize(base));
		if (baseRel === null)
			baseRel = relInside(path, hostRoot, path.resolve(base));
		if (baseRel !== null)
			rel = relInside(path.posix, CONTAINER_ROOT, path.posix.join(
			    CONTAINER_ROOT, baseRel, input));
	}
	if (rel === null)
		throw new Error(`Sandbox path escapes allowed mounts; cannot access: ${
		    filePath}`);
	return rel;
}

// containerPath REL: /workspace/REL.
export function containerPath(rel) {
	return rel === "" ? CONTAINER_ROOT : `${CONTAINER_ROOT}/${rel}`;
}
