package virtual

import (
	"context"
	"net"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// grpcConfig is the retry policy of herd's grpc-retry preset as a service
// config (gRFC A6), UNAVAILABLE retried.
const grpcConfig = `{"methodConfig": [{"name": [{"service": "virtual.Window"}], "retryPolicy": {
	"maxAttempts": 5, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2,
	"retryableStatusCodes": ["UNAVAILABLE"]}}]}`

const grpcMethod = "/virtual.Window/Call"

// grpcRetry is grpc-go's retry over an in-memory connection (bufconn):
// one server and one ClientConn per trial, inside its bubble, and each
// client one unary call carrying its number; the server's handler asks
// the window server and answers UNAVAILABLE when it fails the call.
func grpcRetry(call func(c int32) bool) (func(c int32) bool, func()) {
	lis := bufconn.Listen(1 << 16)
	srv := grpc.NewServer()
	srv.RegisterService(&grpc.ServiceDesc{
		ServiceName: "virtual.Window",
		HandlerType: (*any)(nil),
		Methods: []grpc.MethodDesc{{MethodName: "Call", Handler: func(_ any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
			in := new(wrapperspb.UInt32Value)
			if err := dec(in); err != nil {
				return nil, err
			}
			if !call(int32(in.GetValue())) {
				return nil, status.Error(codes.Unavailable, "window full")
			}
			return &emptypb.Empty{}, nil
		}}},
	}, struct{}{})
	go srv.Serve(lis)
	conn, err := grpc.NewClient("passthrough:///bufconn",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultServiceConfig(grpcConfig))
	if err != nil {
		panic(err)
	}
	client := func(c int32) bool {
		return conn.Invoke(context.Background(), grpcMethod, wrapperspb.UInt32(uint32(c)), new(emptypb.Empty)) == nil
	}
	return client, func() {
		conn.Close()
		srv.Stop()
	}
}
