// Package mcpdual is the module root. It holds no code, only the tests that
// guard the module's structure (layering_test.go). The library lives in
// package mcp and the era packages era2025 and era2026.
package mcpdual
