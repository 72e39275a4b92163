// Package httpsyntax reads the syntax HTTP field values share (RFC 9110
// §5.6): what more than one package parses by hand, so that each reads it
// alike. It is a leaf on the standard library alone.
package httpsyntax
