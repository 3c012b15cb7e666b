# The operator image: manager, mcp-server (the sidecar) and cwac-runner (the
# scan pod's init container copies /cwac-runner from this image). Static
# binaries on distroless, non-root. Without a container engine, `make
# image-tar` builds the same layout from the same binaries as an OCI archive.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY api/ api/
COPY cmd/ cmd/
COPY internal/ internal/
ENV CGO_ENABLED=0 GOOS=linux
RUN go build -trimpath -ldflags "-s -w" -o /out/manager ./cmd/manager && \
    go build -trimpath -ldflags "-s -w" -o /out/cwac-runner ./cmd/cwac-runner && \
    go build -trimpath -ldflags "-s -w" -o /out/mcp-server ./cmd/mcp-server

FROM gcr.io/distroless/static:nonroot
COPY --from=build /out/manager /manager
COPY --from=build /out/cwac-runner /cwac-runner
COPY --from=build /out/mcp-server /mcp-server
USER 65532:65532
ENTRYPOINT ["/manager"]
