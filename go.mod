module github.com/mcpdual/mcpdual

go 1.26.0

require (
	github.com/google/go-cmp v0.7.0
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	golang.org/x/crypto v0.59.0
	golang.org/x/text v0.44.0
)

require golang.org/x/sys v0.50.0 // indirect
