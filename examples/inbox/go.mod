module github.com/mcpdual/mcpdual/examples/inbox

go 1.26.0

require (
	github.com/go-jose/go-jose/v4 v4.1.9
	github.com/mcpdual/mcpdual v0.5.0
	github.com/mcpdual/mcpdual/mcp/openapi v0.5.0
	github.com/mcpdual/mcpdual/mcp/redisstore v0.5.0
	github.com/redis/go-redis/v9 v9.23.0
	go.opentelemetry.io/otel v1.47.0
	go.opentelemetry.io/otel/exporters/stdout/stdouttrace v1.47.0
	go.opentelemetry.io/otel/sdk v1.47.0
)

require (
	github.com/go-logr/logr v1.4.4 // indirect
	github.com/go-logr/stdr v1.2.2 // indirect
	github.com/google/uuid v1.6.0 // indirect
	go.opentelemetry.io/auto/sdk v1.2.1 // indirect
	go.opentelemetry.io/otel/log v1.47.0 // indirect
	go.opentelemetry.io/otel/metric v1.47.0 // indirect
	go.opentelemetry.io/otel/trace v1.47.0 // indirect
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/go-redis/redis_rate/v10 v10.0.1 // indirect
	github.com/mcpdual/mcpdual/mcp/oidc v0.5.0
	github.com/mcpdual/mcpdual/mcp/otelmcp v0.5.0
	github.com/pb33f/go-yaml v0.1.1 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/crypto v0.59.0 // indirect
	golang.org/x/sync v0.25.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
	golang.org/x/text v0.44.0 // indirect
)

replace github.com/mcpdual/mcpdual => ../..

replace github.com/mcpdual/mcpdual/mcp/openapi => ../../mcp/openapi

replace github.com/mcpdual/mcpdual/mcp/redisstore => ../../mcp/redisstore

replace github.com/mcpdual/mcpdual/mcp/otelmcp => ../../mcp/otelmcp

replace github.com/mcpdual/mcpdual/mcp/oidc => ../../mcp/oidc
