/** Types of worldMap.mjs, for the test that holds the page's projection to it. */
export declare const WIDTH: number
export declare const HEIGHT: number
export declare const PER_DEGREE: number
export declare const worldMap: () => {
  readonly world: {
    readonly width: number
    readonly height: number
    readonly fit: { readonly k: number; readonly tx: number; readonly ty: number }
    readonly graticule: string
    readonly land: string
    readonly borders: string
  }
  readonly degrees: { readonly perDegree: number; readonly land: string; readonly borders: string }
}
