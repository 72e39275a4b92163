module github.com/mcpdual/mcpdual/mcp/openapi

go 1.26.0

require (
	github.com/google/go-cmp v0.7.0
	github.com/mcpdual/mcpdual v0.5.0
	github.com/pb33f/go-yaml v0.1.1
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
)

require (
	golang.org/x/crypto v0.59.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
	golang.org/x/text v0.44.0 // indirect
)

replace github.com/mcpdual/mcpdual => ../..
