package provider

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
)

// transportError classifies an error that is no API answer: a connection
// that broke (retryable while nothing arrived) or a stream that did not
// decode (not retryable: the provider spoke, just not in its format).
func transportError(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var idle errIdle
	if errors.As(err, &idle) {
		return &APIError{Type: "timeout", Message: idle.Error(), Retryable: true}
	}
	var netErr net.Error
	if errors.As(err, &netErr) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		strings.Contains(err.Error(), "connection reset") || strings.Contains(err.Error(), "connection refused") {
		return &APIError{Type: "connection", Message: err.Error(), Retryable: true}
	}
	return &APIError{Type: "invalid_stream", Message: "the provider's stream could not be read: " + err.Error()}
}
