/** `cairn/mcp`: the table's agent tools as an MCP server, and its streamable HTTP handler. */
export { loopbackNames, McpHttp, type McpHttpOptions } from '../mcp/http.js';
export { createMcpServer, type McpServerOptions, mcpTools } from '../mcp/server.js';
