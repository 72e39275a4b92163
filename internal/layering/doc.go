// Package layering holds no code: its test enforces the import table of the
// module's packages (which package may import which) and that the module
// root holds only the design card's entries; another test bounds package
// mcp's mutual file pairs and file sizes (design record 030).
package layering
