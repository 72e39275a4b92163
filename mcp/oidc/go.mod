module github.com/mcpdual/mcpdual/mcp/oidc

go 1.26.0

replace github.com/mcpdual/mcpdual => ../..

require (
	github.com/go-jose/go-jose/v4 v4.1.9
	github.com/mcpdual/mcpdual v0.5.0
	golang.org/x/sync v0.25.0
)

require (
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	golang.org/x/crypto v0.59.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
	golang.org/x/text v0.44.0 // indirect
)
