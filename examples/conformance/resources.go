package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/content"
)

func addResources(srv *mcp.Server, mux *http.ServeMux) {
	mux.HandleFunc("GET /resources/static-text", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "This is the content of the static text resource.")
	})
	mux.HandleFunc("GET /resources/static-binary", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(pngData)
	})
	mux.HandleFunc("GET /resources/watched", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "Watched resource content.")
	})
	mux.HandleFunc("GET /resources/template/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		id := r.PathValue("id")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": id, "templateTest": true, "data": "Data for ID: " + id})
	})
	srv.AddResource(mcp.Resource{URI: "test://static-text", Name: "Static Text Resource", Description: "A static text resource for testing.", MIMEType: "text/plain"},
		"GET /resources/static-text", mux)
	srv.AddResource(mcp.Resource{URI: "test://static-binary", Name: "Static Binary Resource", Description: "A static PNG image for testing.", MIMEType: "image/png"},
		"GET /resources/static-binary", mux)
	srv.AddResource(mcp.Resource{URI: "test://watched-resource", Name: "Watched Resource", Description: "A resource clients may read again.", MIMEType: "text/plain"},
		"GET /resources/watched", mux)
	srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "test://template/{id}/data", Name: "Template Resource",
		Description: "A resource template with an id.", MIMEType: "application/json"}, "GET /resources/template/{id}", mux,
		mcp.WithCompletion("id", func(ctx context.Context, value string, args map[string]string) ([]string, error) {
			return prefixed(value, "123", "456", "789"), nil
		}))
}

func prefixed(value string, candidates ...string) []string {
	out := []string{}
	for _, c := range candidates {
		if strings.HasPrefix(c, value) {
			out = append(out, c)
		}
	}
	return out
}

func messages(ms ...mcp.PromptMessage) *mcp.PromptResult { return &mcp.PromptResult{Messages: ms} }

func user(c content.Block) mcp.PromptMessage {
	return mcp.PromptMessage{Role: content.User, Content: c}
}

func addPrompts(srv *mcp.Server) {
	srv.AddPrompt(mcp.Prompt{Name: "test_simple_prompt", Description: "A simple prompt without arguments."},
		func(ctx context.Context, args map[string]string) (*mcp.PromptResult, error) {
			return messages(user(content.Text("This is a simple prompt for testing."))), nil
		})
	srv.AddPrompt(mcp.Prompt{Name: "test_prompt_with_arguments", Description: "A prompt with two required arguments.",
		Arguments: []mcp.PromptArgument{{Name: "arg1", Description: "First test argument", Required: true}, {Name: "arg2", Description: "Second test argument", Required: true}}},
		func(ctx context.Context, args map[string]string) (*mcp.PromptResult, error) {
			return messages(user(content.Text("Prompt with arguments: arg1='" + args["arg1"] + "', arg2='" + args["arg2"] + "'"))), nil
		},
		mcp.WithCompletion("arg1", func(ctx context.Context, value string, args map[string]string) ([]string, error) {
			return prefixed(value, "testValue1", "testValue2", "test", "other"), nil
		}))
	srv.AddPrompt(mcp.Prompt{Name: "test_prompt_with_embedded_resource", Description: "A prompt embedding a resource.",
		Arguments: []mcp.PromptArgument{{Name: "resourceUri", Description: "URI of the resource to embed", Required: true}}},
		func(ctx context.Context, args map[string]string) (*mcp.PromptResult, error) {
			return messages(
				user(content.EmbeddedText(args["resourceUri"], "text/plain", "Embedded resource content for testing.")),
				user(content.Text("Please process the embedded resource above.")),
			), nil
		})
	srv.AddPrompt(mcp.Prompt{Name: "test_prompt_with_image", Description: "A prompt with an image."},
		func(ctx context.Context, args map[string]string) (*mcp.PromptResult, error) {
			return messages(user(content.Image(pngData, "image/png")), user(content.Text("Please analyze the image above."))), nil
		})
	srv.AddPrompt(mcp.Prompt{Name: "test_input_required_result_prompt", Description: "Asks the user for context first (2026-07-28)."},
		func(ctx context.Context, args map[string]string) (*mcp.PromptResult, error) {
			call := mcp.CallFromContext(ctx)
			if a, ok := call.Elicitation("user_context"); ok && a.Action == mcp.ElicitAccept {
				return messages(user(content.Text("Context from the user: " + string(a.Content)))), nil
			}
			call.RequireInput(nil, mcp.ElicitForm("user_context", "What context should the prompt use?",
				schema(`{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}`)))
			return nil, nil
		})
}
