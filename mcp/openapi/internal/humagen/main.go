//go:build ignore

// humagen writes the OpenAPI document huma (github.com/danielgtaylor/huma/v2)
// generates for a small API with its default configuration, in which every
// body gets a readOnly "$schema" property: ../../testdata/huma-3.1.json,
// which TestHuma registers and .ci/huma-ts.sh serves. It is kept out of the
// module's build (the ignore constraint) so that huma is no dependency of
// mcp/openapi; regenerate it in a module of its own, without the
// constraint:
//
//	d=$(mktemp -d) && sed 1,2d main.go > "$d/main.go" && cd "$d" &&
//	  go mod init humagen && go get github.com/danielgtaylor/huma/v2@v2.37.2 &&
//	  go run . > <repo>/mcp/openapi/testdata/huma-3.1.json
package main

import (
	"context"
	"net/http"
	"os"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
)

type Item struct {
	ID    string   `json:"id" readOnly:"true" doc:"Assigned by the service"`
	Name  string   `json:"name" minLength:"1" maxLength:"80"`
	Price float64  `json:"price" minimum:"0"`
	Tags  []string `json:"tags,omitempty"`
}

type ItemBody struct{ Body Item }

type GreetingOutput struct {
	Body struct {
		Message string `json:"message" example:"Hello, world!"`
	}
}

func main() {
	api := humago.New(http.NewServeMux(), huma.DefaultConfig("Shop", "1.0.0"))
	huma.Register(api, huma.Operation{OperationID: "get-greeting", Method: http.MethodGet, Path: "/greeting/{name}", Summary: "Get a greeting"},
		func(ctx context.Context, in *struct {
			Name string `path:"name" maxLength:"30" example:"world"`
		}) (*GreetingOutput, error) {
			return nil, nil
		})
	huma.Register(api, huma.Operation{OperationID: "list-items", Method: http.MethodGet, Path: "/items", Summary: "List items"},
		func(ctx context.Context, in *struct {
			Limit int    `query:"limit" minimum:"1" maximum:"100" default:"20"`
			Tag   string `query:"tag"`
		}) (*struct {
			Body []Item
		}, error) {
			return nil, nil
		})
	huma.Register(api, huma.Operation{OperationID: "create-item", Method: http.MethodPost, Path: "/items", Summary: "Create an item", DefaultStatus: http.StatusCreated},
		func(ctx context.Context, in *ItemBody) (*ItemBody, error) { return nil, nil })
	huma.Register(api, huma.Operation{OperationID: "update-item", Method: http.MethodPut, Path: "/items/{id}", Summary: "Replace an item"},
		func(ctx context.Context, in *struct {
			ID   string `path:"id"`
			Body Item
		}) (*ItemBody, error) {
			return nil, nil
		})
	huma.Register(api, huma.Operation{OperationID: "delete-item", Method: http.MethodDelete, Path: "/items/{id}", Summary: "Delete an item", DefaultStatus: http.StatusNoContent},
		func(ctx context.Context, in *struct {
			ID string `path:"id"`
		}) (*struct{}, error) {
			return nil, nil
		})
	b, err := api.OpenAPI().MarshalJSON()
	if err != nil {
		panic(err)
	}
	os.Stdout.Write(append(b, '\n'))
}
