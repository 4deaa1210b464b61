"""The official Python MCP client against `delphi-mcp serve` of examples/everything over stdio
(handshake era): content results, tool errors, progress and log notifications, sampling and
elicitation answered by this client, cancellation, resources, a resource template, prompts and
completions. Prints `ok`/`FAIL` per check and `N failure(s)`.

Usage: python_everything.py SERVER LIBRARY [SERVE ARGS...]
"""

import asyncio
import base64
import json
import sys

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

from mcp_checks import Checks, text_of


async def run(server, library, serve_args, check):
    logs = []
    asked = {"sampling": 0, "elicitation": 0}

    async def on_log(params):
        logs.append((params.level, params.data))

    async def sampling(_context, params):
        asked["sampling"] += 1
        prompt = params.messages[0].content.text
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=f"echo of {prompt}"),
            model="test-model",
        )

    async def elicitation(_context, params):
        asked["elicitation"] += 1
        if "decline" in params.message:
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="accept", content={"username": "ada", "email": "ada@example.com"})

    params = StdioServerParameters(command=server, args=["serve", library, *serve_args])
    async with stdio_client(params) as (read, write):
        async with ClientSession(
            read, write, logging_callback=on_log, sampling_callback=sampling, elicitation_callback=elicitation
        ) as client:
            init = await client.initialize()
            caps = init.capabilities
            check("capabilities", caps.resources is not None and caps.prompts is not None and caps.completions is not None, str(caps))

            image = await client.call_tool("test_image_content", {})
            block = image.content[0]
            check("image block", block.type == "image" and block.mime_type == "image/png"
                  and base64.b64decode(block.data).startswith(b"\x89PNG"), str(image))
            check("image result has no structuredContent", image.structured_content is None, str(image))
            audio = await client.call_tool("test_audio_content", {})
            check("audio block", audio.content[0].type == "audio" and audio.content[0].mime_type == "audio/wav"
                  and base64.b64decode(audio.content[0].data).startswith(b"RIFF"), str(audio))
            mixed = await client.call_tool("test_multiple_content_types", {})
            check("mixed blocks", [c.type for c in mixed.content] == ["text", "image", "resource"], str(mixed))
            check("embedded resource", mixed.content[2].resource.uri == "test://mixed-content-resource"
                  and json.loads(mixed.content[2].resource.text)["value"] == 123, str(mixed.content[2]))

            error = await client.call_tool("test_error_handling", {})
            check("EMcpToolError verbatim", error.is_error and text_of(error) == "This tool intentionally returns an error for testing", str(error))

            await client.set_logging_level("info")
            logged = await client.call_tool("test_tool_with_logging", {})
            check("logging tool answers", not logged.is_error, str(logged))
            check("three log notifications", [d for _, d in logs] == ["Tool execution started", "Tool processing data", "Tool execution completed"], str(logs))
            await client.set_logging_level("error")
            await client.call_tool("test_tool_with_logging", {})
            check("setLevel error filters info", len(logs) == 3, str(logs))

            progress = []

            async def on_progress(done, total, message):
                progress.append((done, total, message))

            counted = await client.call_tool("count_with_progress", {"Steps": 4}, progress_callback=on_progress)
            check("count result", counted.structured_content == {"result": 4}, str(counted))
            check("progress notifications", progress == [(i, 4.0, f"step {i}") for i in range(1, 5)], str(progress))
            progress.clear()
            await client.call_tool("count_with_progress", {"Steps": 2})
            check("no progress without a token", progress == [], str(progress))

            sampled = await client.call_tool("test_sampling", {"prompt": "hello"})
            check("sampling", sampled.structured_content == {"result": "LLM response: echo of hello"} and asked["sampling"] == 1, str(sampled))
            elicited = await client.call_tool("test_elicitation", {"message": "who are you?"})
            answer = elicited.structured_content["result"]
            check("elicitation accepted", answer.startswith("User response: action=accept, content=")
                  and json.loads(answer.split("content=", 1)[1]) == {"username": "ada", "email": "ada@example.com"}, answer)
            declined = await client.call_tool("test_elicitation", {"message": "please decline"})
            check("elicitation declined", declined.structured_content == {"result": "User response: action=decline"}, str(declined))

            tools = {t.name: t for t in (await client.list_tools()).tools}
            check("context is no argument", "Ctx" not in json.dumps(tools["count_with_progress"].input_schema)
                  and tools["count_with_progress"].input_schema["required"] == ["Steps"], str(tools["count_with_progress"].input_schema))
            check("content tools have no outputSchema", tools["test_image_content"].output_schema is None, str(tools["test_image_content"]))
            ctx_arg = await client.call_tool("count_with_progress", {"Steps": 1, "Ctx": 1})
            check("Ctx is an unknown argument", ctx_arg.is_error and "unknown argument" in text_of(ctx_arg), text_of(ctx_arg))

            resources = [r.uri for r in (await client.list_resources()).resources]
            check("resources listed", sorted(str(u) for u in resources) == ["test://static-binary", "test://static-text", "test://watched-resource"], str(resources))
            templates = [t.uri_template for t in (await client.list_resource_templates()).resource_templates]
            check("templates listed", templates == ["test://template/{id}/data"], str(templates))
            text = (await client.read_resource("test://static-text")).contents[0]
            check("text resource", text.text == "This is the content of the static text resource." and text.mime_type == "text/plain", str(text))
            blob = (await client.read_resource("test://static-binary")).contents[0]
            check("binary resource", base64.b64decode(blob.blob).startswith(b"\x89PNG"), str(blob))
            item = (await client.read_resource("test://template/abc-42/data")).contents[0]
            check("template resource", json.loads(item.text)["id"] == "abc-42" and str(item.uri) == "test://template/abc-42/data", str(item))
            try:
                await client.read_resource("test://missing")
                check("missing resource refused", False)
            except MCPError as e:
                check("missing resource refused", e.code == -32002 and "test://missing" in e.message, f"{e.code} {e.message}")

            prompts = {p.name: p for p in (await client.list_prompts()).prompts}
            check("prompts listed", set(prompts) == {"test_simple_prompt", "test_prompt_with_arguments", "test_prompt_with_embedded_resource", "test_prompt_with_image", "ticket_summary", "test_input_required_result_prompt"}, str(list(prompts)))
            check("prompt arguments", [(a.name, a.required) for a in prompts["test_prompt_with_arguments"].arguments] == [("arg1", True), ("arg2", True)], str(prompts["test_prompt_with_arguments"]))
            got = await client.get_prompt("test_prompt_with_arguments", {"arg1": "one", "arg2": "two"})
            check("prompt text", got.messages[0].role == "user" and got.messages[0].content.text == "Prompt with arguments: arg1='one', arg2='two'", str(got))
            got = await client.get_prompt("test_prompt_with_image")
            check("prompt blocks", [m.content.type for m in got.messages] == ["image", "text"], str(got))
            try:
                await client.get_prompt("test_prompt_with_arguments", {"arg1": "one"})
                check("missing prompt argument refused", False)
            except MCPError as e:
                check("missing prompt argument refused", e.code == -32602 and "arg2" in e.message, e.message)
            asked_before = asked["elicitation"]
            got = await client.get_prompt("test_input_required_result_prompt")
            check("prompt asks the user (handshake era: elicitation/create)", asked["elicitation"] == asked_before + 1
                  and got.messages[0].content.text.startswith("Answer with this context in mind:"), str(got))
            got = await client.get_prompt("ticket_summary", {"status": "pending"})
            check("enumeration argument", "pending" in got.messages[0].content.text, str(got))

            done = await client.complete(types.PromptReference(type="ref/prompt", name="test_prompt_with_arguments"), {"name": "arg1", "value": "par"})
            check("provider completion", done.completion.values == ["paris", "park", "parse"], str(done))
            done = await client.complete(types.PromptReference(type="ref/prompt", name="ticket_summary"), {"name": "status", "value": "in"})
            check("enumeration completion", done.completion.values == ["inactive"], str(done))
            done = await client.complete(types.PromptReference(type="ref/prompt", name="test_simple_prompt"), {"name": "x", "value": ""})
            check("no completion", done.completion.values == [], str(done))


def main():
    check = Checks()
    asyncio.run(run(sys.argv[1], sys.argv[2], sys.argv[3:], check))
    sys.exit(check.exit_code())


if __name__ == "__main__":
    main()
