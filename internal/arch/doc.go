// Package arch holds no code: its test checks the package map of
// docs/design/005-package-map.md, that every package imports only packages
// of lower layers, so that dependencies point one way (CLI → engines →
// analysis → storage → formats → leaves) and nothing below the CLI imports
// what stands above it.
package arch
