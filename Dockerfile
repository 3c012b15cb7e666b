# The operator image: manager and cwac-runner (the scan pod's init container
# copies /cwac-runner from this image). Static binaries on distroless, non-root.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY api/ api/
COPY cmd/ cmd/
COPY internal/ internal/
ENV CGO_ENABLED=0 GOOS=linux
RUN go build -trimpath -ldflags "-s -w" -o /out/manager ./cmd/manager && \
    go build -trimpath -ldflags "-s -w" -o /out/cwac-runner ./cmd/cwac-runner

FROM gcr.io/distroless/static:nonroot
COPY --from=build /out/manager /manager
COPY --from=build /out/cwac-runner /cwac-runner
USER 65532:65532
ENTRYPOINT ["/manager"]
