module github.com/mcpdual/mcpdual/internal/streambench

go 1.26.0

require (
	github.com/mcpdual/mcpdual v0.5.0
	github.com/mcpdual/mcpdual/mcp/redisstore v0.5.0
	github.com/redis/go-redis/v9 v9.23.0
)

replace github.com/mcpdual/mcpdual => ../..

replace github.com/mcpdual/mcpdual/mcp/redisstore => ../../mcp/redisstore
