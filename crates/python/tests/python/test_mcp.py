"""`litnav mcp` driven by the reference Python MCP client (the `mcp` package from PyPI): the tools
it lists, each tool's answer against the `litnav` command's JSON, bad arguments, progress,
cancellation, resources and the prompt."""

import asyncio
import contextlib
import json
import os
import re
import subprocess

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

import litnav
from conftest import most_cited

TOOLS = ["search", "paper", "citations", "related", "path", "map", "expand", "score_taxobench", "score_survey"]


@contextlib.asynccontextmanager
async def server(*args):
    """A `litnav mcp` process and a client session initialized with it."""
    parameters = StdioServerParameters(command=os.environ["LITNAV_BIN"], args=["mcp", *args], env=dict(os.environ))
    async with stdio_client(parameters) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session


def run(test):
    """Run the coroutine `test` to its end (each test has its own server)."""
    return asyncio.run(test())


def answered(result):
    assert not result.is_error, result.content[0].text
    return result.structured_content


def test_the_tools_are_litnavs_requests_with_their_descriptions():
    async def test():
        async with server() as session:
            tools = {tool.name: tool for tool in (await session.list_tools()).tools}
            assert list(tools) == TOOLS
            search = tools["search"].input_schema
            assert search["type"] == "object"
            assert {"q", "like", "k", "mode", "before", "exclude_surveys"} <= set(search["properties"])
            assert search["properties"]["before"]["description"].startswith("Only papers published strictly before")
            assert tools["path"].input_schema["properties"]["max_hops"]["description"].startswith("Longest path")
            assert tools["paper"].input_schema["required"] == ["id"]
            assert all(tool.annotations.read_only_hint for tool in tools.values())

    run(test)


def test_search_answers_as_litnav_search(cli):
    async def test():
        async with server() as session:
            cases = [
                ({"q": "vision transformer"}, ["-q", "vision transformer"]),
                ({"q": "Attention is all you need", "mode": "bm25"}, ["-q", "Attention is all you need", "--mode", "bm25"]),
                ({"q": "graph neural networks", "before": 2019, "exclude_surveys": True, "k": 25},
                 ["-q", "graph neural networks", "--before", "2019", "--exclude-surveys", "-k", "25"]),
            ]
            for arguments, flags in cases:
                result = await session.call_tool("search", arguments)
                assert answered(result)["hits"] == cli("search", *flags, "--json"), arguments
            named = await session.call_tool("search", {"q": "Attention is all you need", "k": 3})
            assert "(named by its title)" in named.content[0].text.splitlines()[1]
            like = await session.call_tool("related", {"id": answered(named)["hits"][0]["id"], "relation": "similar"})
            similar = cli("search", "--like", answered(named)["hits"][0]["id"], "-k", "20", "--json")
            assert answered(like)["hits"] == similar

    run(test)


def test_a_papers_tools_answer_as_litnav_relations(cli, acl):
    corpus = str(acl["corpus"])
    where = ["--corpus", corpus, "--json"]
    classic, second = most_cited(acl["edges"], 2)
    citing = next(a for a, b in acl["edges"] if b == classic)

    async def test():
        async with server("--corpus", corpus) as session:
            paper = answered(await session.call_tool("paper", {"id": classic}))
            assert paper["profile"] == cli("relations", "paper", classic, *where)
            assert paper["paper"]["id"] == classic
            windowed = answered(await session.call_tool("paper", {"id": classic, "window": 5, "units": "references"}))
            assert windowed["profile"] == cli("relations", "paper", classic, "--window", "5", "--units", "references",
                                              *where)
            citations = answered(await session.call_tool("citations", {"id": citing, "citers": 5}))
            assert sorted(r["id"] for r in citations["references"]) == sorted(b for a, b in acl["edges"] if a == citing)
            everyone = cli("relations", "citers", citing, *where)
            assert citations["citers_total"] == len(everyone["citers"])
            assert citations["citers"]["citers"] == everyone["citers"][:5]
            for relation in ("co-cited", "coupled"):
                related = answered(await session.call_tool("related", {"id": classic, "relation": relation, "k": 7}))
                assert related == cli("relations", relation, classic, "-k", "7", *where)
            path = answered(await session.call_tool("path", {"from": citing, "to": classic}))
            assert path == cli("relations", "path", citing, classic, *where)

    run(test)


def test_the_scorers_answer_as_litnav_eval_and_the_package(cli, datasets, tmp_path):
    data = datasets / "taxobench" / "data.jsonl"
    predictions = datasets / "taxobench" / "predictions_example.jsonl"
    parsed = [json.loads(line) for line in open(predictions, encoding="utf-8") if line.strip()]
    expert = datasets / "bloom-eval" / "cs_01" / "human"
    generated = datasets / "bloom-eval" / "cs_01" / "llm"
    metrics = ["HIRC", "TBal", "FMI", "DSI", "SCons"]

    async def test():
        async with server() as session:
            by_file = answered(await session.call_tool("score_taxobench", {
                "predictions": str(predictions), "data": str(data), "similarity": "public"}))
            assert by_file == litnav.score_taxobench(predictions, data, similarity="public")
            assert by_file["summary"] == cli("eval", "taxobench", "--data", str(data), "--predictions",
                                             str(predictions), "--similarity", "public", "--json")
            # Inline lines, and the datasets' data by default.
            inline = answered(await session.call_tool("score_taxobench", {"predictions": parsed, "similarity": "public"}))
            assert inline["summary"] == by_file["summary"]
            broken = answered(await session.call_tool("score_taxobench", {
                "predictions": [parsed[0], {"id": parsed[1]["id"]}], "similarity": "public"}))
            assert any("predictions:2" in problem for problem in broken["problems"]), broken["problems"]
            survey = answered(await session.call_tool("score_survey", {
                "expert": str(expert), "generated": str(generated), "metrics": metrics}))
            printed = cli("eval", "survey", "--expert", str(expert), "--generated", str(generated),
                          "--metrics", ",".join(metrics), "--json")
            assert survey == printed
            # The survey an agent wrote, as its Markdown text, is scored as that text in a file.
            markdown = next(generated.glob("*.md")).read_text(encoding="utf-8")
            written = answered(await session.call_tool("score_survey", {
                "expert": str(expert), "generated_markdown": markdown, "metrics": metrics}))
            alone = tmp_path / "generated.md"
            alone.write_text(markdown, encoding="utf-8")
            printed = cli("eval", "survey", "--expert", str(expert), "--generated", str(alone),
                          "--metrics", ",".join(metrics), "--json")
            assert written["generated"]["path"] == "generated_markdown"
            printed["generated"]["path"] = "generated_markdown"
            assert written == printed

    run(test)


def test_bad_arguments_are_tool_errors_naming_the_argument():
    async def test():
        async with server() as session:
            cases = {
                ("search", json.dumps({"q": "x", "k": "ten"})): "k: invalid type",
                ("search", json.dumps({"q": "x", "top": 3})): "top: not an argument of this tool",
                ("search", json.dumps({"k": 3})): "q: give the words to search for",
                ("search", json.dumps({"q": "x", "mode": "magic"})): "mode: unknown mode",
                ("paper", json.dumps({})): "missing field `id`",
                ("paper", json.dumps({"id": "no-such-paper"})): "no-such-paper",
                ("path", json.dumps({"from": "a", "to": "b", "max_hops": 40})): "max_hops: between 1 and 10",
                ("expand", json.dumps({"map": "0000000000000000", "node": "t1"})): "map: no map",
                ("map", json.dumps({"topic": "x", "llm": True})): "llm: this server has no LLM",
                ("score_taxobench", json.dumps({"predictions": 3})): "predictions: data did not match any variant",
                ("score_survey", json.dumps({"expert": "/nonexistent", "generated": "a", "generated_markdown": "b"})):
                    "generated, generated_markdown: give the generated survey one way",
                ("score_survey", json.dumps({"expert": "/x", "generated": "/y", "metrics": ["XYZ"]})): "XYZ",
            }
            for (tool, arguments), expected in cases.items():
                result = await session.call_tool(tool, json.loads(arguments))
                assert result.is_error, (tool, arguments)
                assert expected in result.content[0].text, (tool, arguments, result.content[0].text)
                assert result.structured_content["code"] in ("input", "not_found"), result.structured_content
            with pytest.raises(MCPError, match="no tool"):
                await session.call_tool("summon", {})
            # The server goes on answering after every refusal.
            assert answered(await session.call_tool("search", {"q": "continual learning", "k": 2, "mode": "bm25"}))

    run(test)


def test_a_map_reports_progress_expands_and_is_a_resource(cli, tmp_path):
    async def test():
        async with server() as session:
            heard = []

            async def progress(value, total, message):
                heard.append((value, message))

            result = await session.call_tool("map", {"topic": "continual learning", "k": 120},
                                             progress_callback=progress)
            mapped = answered(result)
            printed = cli("map", "--topic", "continual learning", "-k", "120", "--json")
            assert {k: v for k, v in mapped.items() if k != "map_id"} == printed
            assert result.content[0].text.startswith("continual learning — ")
            assert heard and any("organizing" in message for _, message in heard), heard
            assert [value for value, _ in heard] == sorted({value for value, _ in heard}), "progress must grow"
            node = mapped["subtopics"][0]["id"]
            grown = answered(await session.call_tool("expand", {"map": mapped["map_id"], "node": node, "k": 40}))
            saved = tmp_path / "map.json"
            saved.write_text(json.dumps(printed), encoding="utf-8")
            expanded = cli("expand", "--map", str(saved), "--subtopic", node, "-k", "40", "--json")
            assert {k: v for k, v in grown.items() if k not in ("map_id", "notice")} == expanded
            assert "new papers retrieved" in grown["notice"]
            uris = [resource.uri for resource in (await session.list_resources()).resources]
            assert uris == ["litnav://corpus", f"litnav://maps/{mapped['map_id']}", f"litnav://maps/{grown['map_id']}"]
            stored = await session.read_resource(f"litnav://maps/{mapped['map_id']}")
            assert json.loads(stored.contents[0].text) == mapped
            corpus = json.loads((await session.read_resource("litnav://corpus")).contents[0].text)
            assert corpus == cli("info", "--json")
            with pytest.raises(MCPError):
                await session.read_resource("litnav://maps/ffffffffffffffff")

    run(test)


def test_a_cancelled_map_stops_and_the_server_goes_on():
    async def test():
        async with server() as session:
            started = anyio.Event()

            async def progress(value, total, message):
                started.set()

            async def mapping():
                await session.call_tool("map", {"topic": "large language models", "k": 1000},
                                        progress_callback=progress)

            async with anyio.create_task_group() as group:
                group.start_soon(mapping)
                with anyio.fail_after(300):
                    await started.wait()
                # Cancelling the call sends the protocol's notifications/cancelled.
                group.cancel_scope.cancel()
            with anyio.fail_after(120):
                quick = await session.call_tool("search", {"q": "continual learning", "k": 2, "mode": "bm25"})
            assert answered(quick)["hits"]
            # The whole map takes about 6 s here: a map that went on after the cancellation would
            # be kept within the 30 s watched.
            for _ in range(30):
                uris = [resource.uri for resource in (await session.list_resources()).resources]
                assert uris == ["litnav://corpus"], "a cancelled map is not made"
                await anyio.sleep(1)

    run(test)


def test_the_survey_prompt_names_the_tools_for_the_topic():
    async def test():
        async with server() as session:
            prompts = (await session.list_prompts()).prompts
            assert [prompt.name for prompt in prompts] == ["survey_topic"]
            assert prompts[0].arguments[0].name == "topic" and prompts[0].arguments[0].required
            got = await session.get_prompt("survey_topic", {"topic": "graph neural networks"})
            text = got.messages[0].content.text
            assert "“graph neural networks”" in text
            assert all(f"`{tool}`" in text for tool in ("map", "expand", "search", "paper", "citations", "path"))
            with pytest.raises(MCPError, match="topic"):
                await session.get_prompt("survey_topic", {})

    run(test)


@contextlib.contextmanager
def serving(*extra):
    """`litnav serve` on a free loopback port with a token, and its address."""
    token = "mcp-test-token-0123456789"
    process = subprocess.Popen([os.environ["LITNAV_BIN"], "serve", "--addr", "127.0.0.1:0", "--token", token, *extra],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = process.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)", line)
        assert found, f"litnav serve printed {line!r}"
        yield {"url": f"http://127.0.0.1:{found.group(1)}/mcp", "token": token}
    finally:
        process.terminate()
        process.wait(timeout=60)


@pytest.fixture(scope="module")
def served():
    with serving() as address:
        yield address


@contextlib.asynccontextmanager
async def over_http(url, headers):
    import httpx2
    async with httpx2.AsyncClient(headers=headers, timeout=300) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


def test_the_server_answers_the_same_tools_over_http_with_its_token(cli, served):
    async def test():
        bearer = {"Authorization": f"Bearer {served['token']}"}
        async with over_http(served["url"], bearer) as session:
            # A web server's callers name no file of its machine: no survey scoring, lines inline.
            assert [tool.name for tool in (await session.list_tools()).tools] == [t for t in TOOLS if t != "score_survey"]
            named = await session.call_tool("score_taxobench", {"predictions": "/etc/hostname"})
            assert named.is_error and named.content[0].text.startswith("input: predictions: this server reads no files")
            inline = await session.call_tool("score_taxobench", {"predictions": [], "data": "/etc/hostname"})
            assert inline.is_error and "data: this server reads no files" in inline.content[0].text
            result = await session.call_tool("search", {"q": "vision transformer", "k": 5})
            assert answered(result)["hits"] == cli("search", "-q", "vision transformer", "-k", "5", "--json")
            refused = await session.call_tool("paper", {"id": "no-such-paper"})
            assert refused.is_error and "no-such-paper" in refused.content[0].text
            corpus = json.loads((await session.read_resource("litnav://corpus")).contents[0].text)
            assert corpus["papers"] == cli("info", "--json")["papers"]
            assert "/" not in corpus["corpus"], "the served corpus is named, not located"
            mapped = answered(await session.call_tool("map", {"topic": "continual learning", "k": 60}))
            return mapped

    mapped = run(test)
    import httpx2
    # A map an agent made is one of the page's maps: its permalink answers it.
    page = served["url"].removesuffix("/mcp")
    stored = httpx2.get(f"{page}/api/maps/{mapped['map_id']}",
                        headers={"Authorization": f"Bearer {served['token']}"}, timeout=60)
    assert stored.status_code == 200, stored.text
    assert stored.json()["map"]["subtopics"] == mapped["subtopics"]
    import httpx2
    for headers, status in (({}, 401), ({"Authorization": "Bearer wrong-token-0123456789"}, 401),
                            ({"Authorization": f"Bearer {served['token']}", "Origin": "http://evil.example"}, 403)):
        answer = httpx2.post(served["url"], headers={"Accept": "application/json, text/event-stream", **headers},
                             json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, timeout=30)
        assert answer.status_code == status, (headers, answer.status_code, answer.text)


def test_the_servers_tools_make_maps_within_its_budget(tmp_path):
    async def test(served):
        bearer = {"Authorization": f"Bearer {served['token']}"}
        async with over_http(served["url"], bearer) as session:
            first = await session.call_tool("map", {"topic": "continual learning", "k": 60})
            assert not first.is_error, first.content[0].text
            # The same map again is the one made: no new request against the budget.
            again = await session.call_tool("map", {"topic": "continual learning", "k": 60})
            assert not again.is_error and again.structured_content["map_id"] == first.structured_content["map_id"]
            second = await session.call_tool("map", {"topic": "graph neural networks", "k": 60})
            assert second.is_error and "1 map requests a minute at most" in second.content[0].text, second.content

    # A map store of its own: maps kept from earlier runs would be answered without a request.
    with serving("--budget-maps", "1", "--maps", str(tmp_path / "maps")) as address:
        asyncio.run(test(address))
