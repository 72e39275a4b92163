module github.com/mcpdual/mcpdual/internal/streambench

go 1.26.0

require (
	github.com/mcpdual/mcpdual v0.5.0
	github.com/mcpdual/mcpdual/mcp/redisstore v0.5.0
	github.com/redis/go-redis/v9 v9.23.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/go-redis/redis_rate/v10 v10.0.1 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/crypto v0.59.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
	golang.org/x/text v0.44.0 // indirect
)

replace github.com/mcpdual/mcpdual => ../..

replace github.com/mcpdual/mcpdual/mcp/redisstore => ../../mcp/redisstore
