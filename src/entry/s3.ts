/** `cairn/s3`: the S3-compatible blob engine (blobs of a `Store` in a bucket; docs/design/artifacts.md). */
export { type S3BlobOptions, S3BlobStore } from '../blob/s3/s3-blob-store.js';
