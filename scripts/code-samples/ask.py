"""Ask resolve-pr's MCP server (stdio, official Python SDK) a list of code questions in one
session; print each answer's text and its o200k token count.

Usage: python ask.py BINARY CHECKOUT QUESTIONS.json  (needs `pip install mcp tiktoken`;
RESOLVE_PR_LSP_PATH as for the tests). fetch.sh builds the three checkouts."""
import asyncio, json, sys, time
import tiktoken
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from tiktoken.load import load_tiktoken_bpe
import glob, os
# The o200k table tiktoken-rs ships (the workspace's dev-dependency): no download.
_asset = sorted(glob.glob(os.path.expanduser("~/.cargo/registry/src/*/tiktoken-rs-*/assets/o200k_base.tiktoken")))[-1]
_ranks = load_tiktoken_bpe(_asset)
enc = tiktoken.Encoding(name="o200k", pat_str=r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+""", mergeable_ranks=_ranks, special_tokens={})

async def main(binary, cwd, questions):
    params = StdioServerParameters(command=binary, args=["serve"], cwd=cwd, env=dict(__import__("os").environ))
    async with stdio_client(params) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            for tool, args in questions:
                t = time.time()
                try:
                    res = await asyncio.wait_for(s.call_tool(tool, args), 600)
                    text = "\n".join(c.text for c in res.content if c.type == "text")
                    err = getattr(res, "is_error", getattr(res, "isError", None))
                except Exception as e:
                    text, err = f"EXCEPTION {e!r}", True
                dt = time.time() - t
                print(f"=== {tool} {json.dumps(args)}  [{dt:.1f}s, {len(enc.encode(text))} tokens, isError={err}]")
                lines = text.split("\n")
                print("\n".join(lines[:40]))
                if len(lines) > 40:
                    print(f"... ({len(lines)-40} more lines)")
                print("... last:", lines[-1][:300] if lines else "")

if __name__ == "__main__":
    binary, cwd, qfile = sys.argv[1:4]
    qs = json.load(open(qfile))
    asyncio.run(main(binary, cwd, qs))
