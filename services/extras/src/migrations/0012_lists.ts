import { runStatements, type Migration } from '@inventory/rest';

/**
 * Frozen history: custom links, export templates, saved filters and
 * bookmarks (issue 13). A saved filter's and a bookmark's user is the users
 * service's (no foreign key); a bookmark's object any service's. Never edit
 * it; add a migration.
 */
export function listStatements(schema: string): string[] {
  const s = `"${schema}"`;
  return [
    `CREATE TABLE ${s}."custom_link" (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "content_types" VARCHAR(100)[] NOT NULL,
      "name" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE,
      "enabled" BOOLEAN,
      "link_text" TEXT NOT NULL DEFAULT '',
      "link_url" TEXT NOT NULL DEFAULT '',
      "weight" INTEGER,
      "group_name" VARCHAR(50) NOT NULL DEFAULT '',
      "button_class" VARCHAR(50),
      "new_window" BOOLEAN,
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE TABLE ${s}."export_template" (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "content_types" VARCHAR(100)[] NOT NULL,
      "name" VARCHAR(100) NOT NULL DEFAULT '',
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "template_code" TEXT NOT NULL DEFAULT '',
      "mime_type" VARCHAR(50) NOT NULL DEFAULT '',
      "file_extension" VARCHAR(15) NOT NULL DEFAULT '',
      "as_attachment" BOOLEAN,
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE TABLE ${s}."saved_filter" (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "content_types" VARCHAR(100)[] NOT NULL,
      "name" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE,
      "slug" VARCHAR(100) NOT NULL DEFAULT '' UNIQUE,
      "description" VARCHAR(200) NOT NULL DEFAULT '',
      "user_id" BIGINT,
      "weight" INTEGER,
      "enabled" BOOLEAN,
      "shared" BOOLEAN,
      "parameters" JSONB NOT NULL,
      "created" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      "last_updated" TIMESTAMP WITH TIME ZONE DEFAULT now(),
      PRIMARY KEY ("id")
    )`,
    `CREATE INDEX "saved_filter_user_id_idx" ON ${s}."saved_filter" ("user_id")`,
    `CREATE TABLE ${s}."bookmark" (
      "id" BIGSERIAL,
      "_version" BIGINT NOT NULL DEFAULT 1,
      "object_type" VARCHAR(100) NOT NULL,
      "object_id" BIGINT NOT NULL,
      "object" JSONB,
      "user_id" BIGINT NOT NULL,
      "created" TIMESTAMP WITH TIME ZONE,
      PRIMARY KEY ("id")
    )`,
    `CREATE INDEX "bookmark_user_id_idx" ON ${s}."bookmark" ("user_id")`,
    // one bookmark per object and user; it also finds an object's bookmarks when the object changes
    `CREATE UNIQUE INDEX "bookmark_object_type_object_id_user_id_uniq" ON ${s}."bookmark" ("object_type", "object_id", "user_id")`,
  ];
}

export const lists: Migration = {
  name: '0012_lists',
  up: ({ qi, schema }) => runStatements(qi, listStatements(schema)),
};
