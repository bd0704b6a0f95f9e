/** Reading request bodies and query strings into params: this folder's public entry. */
export { mediaType, contentTypeParam } from './content-type.js';
export { parseQuery, parseForm } from './query.js';
export { readBody, type ClientAbortError } from './read-body.js';
export { BodyParser, parseBody, type ParseBodyOptions } from './parse-body.js';
export { parseJson, type ProtoAction } from './json.js';
export { parseMultipart } from './multipart.js';
export { isUploadFile } from './upload-file.js';
export { isPoisonKey } from './poison.js';
export { nullObject } from './null-object.js';
