"""The calc example's `calc_scale` in FastMCP (bench/run; run with .tools/fastmcp-venv).

usage: fastmcp_calc.py stdio | fastmcp_calc.py http PORT

`http` serves Streamable HTTP at http://127.0.0.1:PORT/mcp, stateless with JSON answers.
"""

import sys

from fastmcp import FastMCP

mcp = FastMCP("fastmcp-calc")


# `async def`: with a plain `def` (run on a worker thread) FastMCP 4.2.3 over stdio never
# answered the call here (the handler ran, no answer was written).
@mcp.tool(name="calc_scale", title="Scale a value")
async def calc_scale(Value: float, Factor: float = 1) -> float:
    """Multiply a value by a factor"""
    return Value * Factor


if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        mcp.run(transport="http", host="127.0.0.1", port=int(sys.argv[2]), path="/mcp",
                stateless_http=True, json_response=True, show_banner=False, log_level="WARNING")
    else:
        mcp.run(transport="stdio", show_banner=False)
