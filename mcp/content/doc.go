// Package content builds the content blocks MCP messages carry — text,
// images, audio, embedded resources and links to resources — and names
// who speaks a message (Role). Prompts (mcp.PromptMessage), sampling
// requests (mcp.SamplingMessage) and tool handlers that answer a full
// CallToolResult use them.
//
// A Block renders itself for every revision: revision 2025-03-26 has no
// resource links, so a link falls back there to a text block naming the
// resource.
package content
