//go:build !linux

package main

import "context"

// subscribeEpoll falls back to the net/http client where there is no epoll.
func subscribeEpoll(ctx context.Context, o options) (subscribeResult, error) {
	return subscribe(ctx, o)
}
