// minclient is the floor `chatls send` is measured against: the least a
// program can do to stream the same answer through the same SDK from the
// same server and put it into the file — read FILE, one streaming Chat
// Completions request, append the text (and the tool calls' names), write
// FILE once.
package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: minclient BASE_URL FILE")
		os.Exit(2)
	}
	base, file := os.Args[1], os.Args[2]
	data, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	client := openai.NewClient(option.WithBaseURL(base), option.WithAPIKey("none"))
	stream := client.Chat.Completions.NewStreaming(context.Background(), openai.ChatCompletionNewParams{
		Model:    "m",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(string(data))},
	})
	var b strings.Builder
	b.Write(data)
	b.WriteString("\n@Assistant:\n")
	for stream.Next() {
		for _, c := range stream.Current().Choices {
			b.WriteString(c.Delta.Content)
			for _, tc := range c.Delta.ToolCalls {
				if tc.Function.Name != "" {
					b.WriteString("\n**Tool Use:** `" + tc.Function.Name + "` (`" + tc.ID + "`)\n")
				}
				b.WriteString(tc.Function.Arguments)
			}
		}
	}
	if err := stream.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
