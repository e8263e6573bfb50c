// Package helix holds the Helix configuration snippets for chatls
// (languages.toml, config.toml, runtime/queries/chat). Helix is not
// installable on the CI machines, so helix_test.go checks the snippets
// against the configuration keys Helix reads.
package helix
