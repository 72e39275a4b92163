module github.com/mcpdual/mcpdual/internal/bench

go 1.26.0

require (
	github.com/getkin/kin-openapi v0.153.0
	github.com/mark3labs/mcp-go v1.2.1
	github.com/mcpdual/mcpdual v0.5.0
	github.com/mcpdual/mcpdual/mcp/openapi v0.0.0
	github.com/modelcontextprotocol/go-sdk v1.8.0
)

require (
	github.com/go-openapi/jsonpointer v0.22.5 // indirect
	github.com/go-openapi/swag/jsonname v0.25.5 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/pb33f/go-yaml v0.1.1 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/spf13/cast v1.7.1 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	go.yaml.in/yaml/v4 v4.0.0 // indirect
	golang.org/x/crypto v0.59.0 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sync v0.25.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
	golang.org/x/text v0.44.0 // indirect
	golang.org/x/time v0.15.0 // indirect
)

replace github.com/mcpdual/mcpdual => ../..

replace github.com/mcpdual/mcpdual/mcp/openapi => ../../mcp/openapi
