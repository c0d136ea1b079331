/** The column of a row's tag ids (`__tag_ids`), read with the row: its representation then asks nothing more for them. */
export const TAG_IDS_COLUMN = '__tag_ids';
