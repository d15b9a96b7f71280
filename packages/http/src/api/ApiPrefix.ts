/** The API prefix below `BASE_PATH`: the API's version is in its path. */
export const API_PREFIX = "/api/v2"
