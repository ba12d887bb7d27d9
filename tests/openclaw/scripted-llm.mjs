// SPDX-License-Identifier: BSD-2-Clause
// A scripted OpenAI-compatible chat completions server on 127.0.0.1 that
// stands in for a model: it replays a fixed list of tool calls, one step
// per request, and records what the agent sent back for each call.
//
//   node scripted-llm.mjs SCRIPT.json PORTFILE RESULTS.jsonl
//
// SCRIPT.json: {"steps": [[{"name": "exec", "arguments": {...},
// "capture": {"NAME": "REGEX"}}, ...], ...], "final": "text"}.  Each
// request gets the next step's calls as tool_calls; once the steps are
// spent it answers "final" as text.  The port it listens on is written
// to PORTFILE.  Every tool result that
// arrives (role "tool") is appended to RESULTS.jsonl as {"step", "id",
// "name", "arguments", "content"}, once per call id, so the test can check
// each one.  Nothing here looks at the prompt: the replies do not depend
// on what OpenClaw says, only on how many requests came -- except that
// "${NAME}" in a call's arguments is replaced by what a "capture" regex
// (its first group) matched in an earlier call's result: a process
// session id that exec handed out, say.  The first request's tool list
// goes to RESULTS.jsonl.tools.json.
import fs from "node:fs";
import http from "node:http";

const [scriptPath, portFile, resultsPath] = process.argv.slice(2);
if (!scriptPath || !portFile || !resultsPath) {
	console.error("usage: scripted-llm.mjs SCRIPT.json PORTFILE RESULTS.jsonl");
	process.exit(2);
}
const script = JSON.parse(fs.readFileSync(scriptPath, "utf8"));
const steps = script.steps ?? [];
const calls = new Map();	// call id -> {step, name, arguments}
const recorded = new Set();
const vars = {};	// captured from results, for "${NAME}" in arguments
let next = 0;

// contentText: a tool message's content as text (a string, or parts).
function contentText(content) {
	if (typeof content === "string")
		return content;
	if (Array.isArray(content))
		return content.map((p) => (typeof p === "string" ? p :
		    p?.text ?? "")).join("");
	return JSON.stringify(content ?? null);
}

// record: append the tool results of a request not seen before.
function record(messages) {
	for (const m of messages ?? []) {
		if (m.role !== "tool" || recorded.has(m.tool_call_id))
			continue;
		recorded.add(m.tool_call_id);
		const call = calls.get(m.tool_call_id) ??
		    calls.get(String(m.tool_call_id).replace(/[^A-Za-z0-9]/g, "")) ??
		    {};
		const text = contentText(m.content);
		for (const [name, re] of Object.entries(call.capture ?? {})) {
			const hit = new RegExp(re).exec(text);
			if (hit)
				vars[name] = hit[1] ?? hit[0];
		}
		fs.appendFileSync(resultsPath, JSON.stringify({
			step: call.step ?? null,
			id: m.tool_call_id,
			name: call.name ?? null,
			arguments: call.arguments ?? null,
			content: text,
		}) + "\n");
	}
}

// reply: the next step's message (tool calls), or the final text.
function reply() {
	const step = next++;
	if (step >= steps.length)
		return { message: { role: "assistant",
		    content: script.final ?? "done" }, finish: "stop" };
	const toolCalls = steps[step].map((c, i) => {
		// Letters and digits only: OpenClaw rewrites other ids.
		const id = `call${step}x${i}`;
		const args = JSON.stringify(c.arguments ?? {}).replace(
		    /\$\{([A-Za-z0-9_]+)\}/g, (_, n) => vars[n] ?? "");
		calls.set(id, { step, name: c.name, arguments: JSON.parse(args),
		    capture: c.capture });
		return { id, type: "function", function: { name: c.name,
		    arguments: args } };
	});
	return { message: { role: "assistant", content: null,
	    tool_calls: toolCalls }, finish: "tool_calls" };
}

function sendStream(res, model, r) {
	res.writeHead(200, { "content-type": "text/event-stream",
	    "cache-control": "no-cache", connection: "keep-alive" });
	const base = { id: `chatcmpl-${next}`, object: "chat.completion.chunk",
	    created: Math.floor(Date.now() / 1000), model };
	const chunk = (delta, finish) => res.write(`data: ${JSON.stringify({
	    ...base, choices: [{ index: 0, delta, finish_reason: finish ??
	    null }] })}\n\n`);
	chunk({ role: "assistant" });
	if (r.message.tool_calls) {
		r.message.tool_calls.forEach((tc, index) => chunk({ tool_calls:
		    [{ index, id: tc.id, type: "function", function: {
		    name: tc.function.name, arguments: tc.function.arguments }
		    }] }));
	} else {
		chunk({ content: r.message.content });
	}
	chunk({}, r.finish);
	res.write(`data: ${JSON.stringify({ ...base, choices: [], usage: {
	    prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 } })}\n\n`);
	res.end("data: [DONE]\n\n");
}

const server = http.createServer((req, res) => {
	let body = "";
	req.setEncoding("utf8");
	req.on("data", (d) => { body += d; });
	req.on("end", () => {
		if (req.method === "GET" && req.url.endsWith("/models")) {
			res.writeHead(200, { "content-type": "application/json" });
			res.end(JSON.stringify({ object: "list", data: [{ id:
			    "scripted", object: "model", owned_by: "clawssh" }] }));
			return;
		}
		if (req.method !== "POST" || !req.url.endsWith("/chat/completions")) {
			res.writeHead(404).end();
			return;
		}
		let request;
		try {
			request = JSON.parse(body);
		} catch {
			res.writeHead(400).end();
			return;
		}
		if (next === 0)
			fs.writeFileSync(`${resultsPath}.tools.json`,
			    JSON.stringify(request.tools ?? [], null, 1));
		record(request.messages);
		const r = reply();
		if (request.stream) {
			sendStream(res, request.model, r);
			return;
		}
		res.writeHead(200, { "content-type": "application/json" });
		res.end(JSON.stringify({ id: `chatcmpl-${next}`, object:
		    "chat.completion", created: Math.floor(Date.now() / 1000),
		    model: request.model, choices: [{ index: 0, message: r.message,
		    finish_reason: r.finish }], usage: { prompt_tokens: 10,
		    completion_tokens: 10, total_tokens: 20 } }));
	});
});
server.listen(0, "127.0.0.1", () => {
	fs.writeFileSync(portFile, `${server.address().port}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
